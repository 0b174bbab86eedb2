// The API describes itself: GET /api (an index) and GET /api/openapi.json (OpenAPI 3.1, built
// on first request by ../openapi/document.ts, then served as the same text with its ETag).
// Both reveal no data: open to anyone (the `open` rule).
import { RECONCILE_KINDS } from '../../domain/catalog/reconcile/service.js';
import { notModified } from '../conditional.js';
import type { HandlerMap } from '../types.js';

/**
 * As every answer without a token (docs/http-api.md): a cache may keep it but asks again before
 * each reuse; the description's ETag makes asking again a 304.
 */
const CACHE = 'no-cache';

const loadDocument = () => import('../openapi/document.js');

export const handlers: HandlerMap = {
  'GET /api': async (ctx) => {
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
  'GET /api/openapi.json': async (ctx) => {
    const { json, etag } = (await loadDocument()).servedDocument();
    ctx.set('Cache-Control', CACHE);
    ctx.set('ETag', etag);
    if (notModified(ctx, etag, null)) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/json';
    ctx.body = json;
  },
};
