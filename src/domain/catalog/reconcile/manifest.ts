// The service manifest of a register's reconciliation service (GET without parameters):
// what OpenRefine reads when a user adds the service, and from then on the only source of the
// URLs of its suggest, preview and data extension services.
import type { v } from '../../../validation.js';
import type { MANIFEST } from './answers.js';
import { serviceOf, type ReconcileKind } from './entities.js';
import { MAX_QUERIES } from './input.js';

export const PREVIEW_SIZE = { width: 400, height: 200 } as const;

/** How to send a token, as an OpenAPI security scheme (0.2 and 1.0-draft name the same one). */
export const AUTHENTICATION = {
  type: 'apiKey',
  in: 'header',
  name: 'Authorization',
  description: 'The word Bearer, a space and an archivectl API token: "Bearer arc_…"',
} as const;

export interface ManifestOptions {
  /** Announce that queries need a token (the settings do not open POST to everyone). */
  authentication?: boolean;
}

/** `baseUrl`: where clients reach the API (`publicUrl`, else the daemon's own origin; never the request's Host), no final /. */
export function manifest(
  kind: ReconcileKind,
  baseUrl: string,
  options: ManifestOptions = {},
): v.InferOutput<typeof MANIFEST> {
  const { types, view } = serviceOf(kind);
  const service = `${baseUrl}/api/${kind}/reconcile`;
  const at = (service_path: string) => ({ service_url: service, service_path });
  return {
    // 0.1 too: its one extra demand (JSONP on every endpoint) the GET endpoints meet.
    versions: ['0.1', '0.2'],
    name: `archivectl ${kind}`,
    identifierSpace: `${baseUrl}/api/${kind}/`,
    schemaSpace: `${baseUrl}/api/${kind}/types/`,
    defaultTypes: [...types],
    // Where a person can look at an entity; keywords have no page of their own.
    ...(view ? { view: { url: `${baseUrl}/api/${kind}/{{id}}` } } : {}),
    preview: { url: `${service}/preview/{{id}}`, ...PREVIEW_SIZE },
    suggest: { entity: at('/suggest/entity'), property: at('/suggest/property'), type: at('/suggest/type') },
    extend: { propose_properties: at('/properties'), property_settings: [] },
    batchSize: MAX_QUERIES,
    ...(options.authentication ? { authentication: AUTHENTICATION } : {}),
  };
}
