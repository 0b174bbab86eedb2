// The API describes itself: GET /api (an index) and GET /api/openapi.json (OpenAPI 3.1, built
// from every route's declaration on first request by ../openapi/document.ts, then served as the
// same text with its ETag). Both reveal no data: open to anyone (the `open` rule).
import { accessRow } from '../../domain/access.js';
import { RECONCILE_KINDS } from '../../domain/catalog/reconcile/service.js';
import { notModified } from '../conditional.js';
import { closed, JSON_TYPE, type Route } from '../route.js';

/**
 * As every answer without a token (docs/http-api.md): a cache may keep it but asks again before
 * each reuse; the description's ETag makes asking again a 304.
 */
const CACHE = 'no-cache';

/** What GET /api answers. */
const INDEX = closed({
  name: { type: 'string' },
  version: { type: 'string' },
  links: {
    type: 'object',
    additionalProperties: { type: 'string', format: 'uri-reference' },
    description: "where to read on: the description, the reconciliation manifests, the token's own description",
  },
});

const loadDocument = () => import('../openapi/document.js');

/** The two routes; `all` gives every route of the API, described by the second. */
export function describeRoutes(all: () => readonly Route[]): Route[] {
  return [
    {
      ...accessRow('GET', '/api', 'open', 'api'),
      summary: 'The index of the API: name, version and where to read on',
      query: [],
      answers: { 200: { description: 'The index', content: { [JSON_TYPE]: INDEX } } },
      handler: async (ctx) => {
        const { packageVersion } = await loadDocument();
        ctx.set('Cache-Control', CACHE);
        ctx.body = {
          name: 'archivectl',
          version: packageVersion(),
          links: {
            description: '/api/openapi.json',
            token: '/api/token',
            ...Object.fromEntries(RECONCILE_KINDS.map((kind) => [`reconcile_${kind}`, `/api/${kind}/reconcile`])),
          },
        };
      },
    },
    {
      ...accessRow('GET', '/api/openapi.json', 'open', 'api'),
      summary: 'This description (OpenAPI 3.1)',
      query: [],
      answers: {
        200: { description: 'The description', content: { [JSON_TYPE]: { type: 'object' } }, headers: ['ETag'] },
        304: { description: 'Not modified (If-None-Match)', headers: ['ETag'] },
      },
      handler: async (ctx) => {
        const { json, etag } = (await loadDocument()).servedDocument(all());
        ctx.set('Cache-Control', CACHE);
        ctx.set('ETag', etag);
        if (notModified(ctx, etag, null)) {
          ctx.status = 304;
          return;
        }
        ctx.type = 'application/json';
        ctx.body = json;
      },
    },
  ];
}
