// The documents the reconciliation services answer (Reconciliation API 0.2 and 1.0-draft),
// converted field by field from the valibot schemas the services' return types are inferred from
// (domain/catalog/reconcile/answers.ts, v1/answers.ts); the routes refer to them by name.
import * as answers from '../../domain/catalog/reconcile/answers.js';
import * as draft from '../../domain/catalog/reconcile/v1/answers.js';
import { componentSchemas, type Schema } from './json-schema.js';

/** The documents, by their component names (shared parts first: the others refer to them). */
export const reconcileSchemas = (): Record<string, Schema> =>
  componentSchemas({
    ReconcileType: answers.TYPE_REF,
    ReconcileValue: answers.PROPERTY_VALUE,
    ReconcileCandidate: answers.CANDIDATE,
    ReconcileSecurityScheme: answers.SECURITY_SCHEME,
    ReconcileManifest: answers.MANIFEST,
    ReconcileResults: answers.RESULT_BATCH,
    ReconcileExtension: answers.EXTENSION,
    ReconcilePropertyProposal: answers.PROPERTY_PROPOSAL,
    ReconcileSuggestedEntities: answers.SUGGESTED_ENTITIES,
    ReconcileSuggestedProperties: answers.SUGGESTED_PROPERTIES,
    ReconcileSuggestedTypes: answers.SUGGESTED_TYPES,
    ReconcileDraftManifest: draft.DRAFT_MANIFEST,
    ReconcileDraftResults: draft.DRAFT_RESULTS,
    ReconcileDraftExtension: draft.DRAFT_EXTENSION,
  });
