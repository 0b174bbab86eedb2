// The service manifest of Reconciliation API 1.0-draft (GET on the service root). Unlike 0.2's,
// it names no URLs of sub-services: a client finds them under the root (/match, /suggest/…,
// /preview, /extend), and the manifest only says which there are.
import type { v } from '../../../../validation.js';
import { serviceOf, type ReconcileKind } from '../entities.js';
import { MAX_QUERIES } from '../input.js';
import { AUTHENTICATION, PREVIEW_SIZE, type ManifestOptions } from '../manifest.js';
import type { DRAFT_MANIFEST } from './answers.js';

export const DRAFT_VERSION = '1.0-draft';

/** The path of a register's 1.0-draft service root, below the API's base URL. */
export const draftRoot = (kind: ReconcileKind) => `/api/${kind}/reconcile/${DRAFT_VERSION}`;

/**
 * `baseUrl` as for 0.2's manifest. Keywords have no page of their own, and the draft requires a
 * view (an RFC 6570 template with `id`): theirs is the preview page.
 */
export function draftManifest(
  kind: ReconcileKind,
  baseUrl: string,
  options: ManifestOptions = {},
): v.InferOutput<typeof DRAFT_MANIFEST> {
  const { types, view } = serviceOf(kind);
  return {
    versions: [DRAFT_VERSION],
    name: `archivectl ${kind}`,
    view: { url: view ? `${baseUrl}/api/${kind}/{id}` : `${baseUrl}${draftRoot(kind)}/preview?id={id}` },
    defaultTypes: [...types],
    preview: { ...PREVIEW_SIZE },
    suggest: { entity: true, property: true, type: true },
    extend: { proposeProperties: true, propertySettings: [] },
    batchSize: MAX_QUERIES,
    // Scores are 0..100 (service.ts).
    standardizedScore: true,
    ...(options.authentication ? { authentication: AUTHENTICATION } : {}),
  };
}
