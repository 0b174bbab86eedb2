// TEI exports (SPEC §4.4). Served from storage; `ids` and /refresh regenerate. HEAD is answered
// by Koa from the GET handler (same headers, no body).
import { getExport, parseIds, refreshExports, regenerateEntries, type TeiExport, type TeiKind } from '../../domain/catalog/tei.js';
import type { ApiContext, Handler, HandlerMap } from '../types.js';

export const TEI_CONTENT_TYPE = 'application/tei+xml; charset=utf-8';

function sendDocument(ctx: ApiContext, exp: TeiExport): void {
  ctx.status = 200;
  ctx.body = exp.document;
  // Set after the body: assigning a string body would otherwise pick text/html for "<?xml".
  ctx.set('Content-Type', TEI_CONTENT_TYPE);
  const modified = new Date(exp.generatedAt);
  if (!Number.isNaN(modified.getTime())) ctx.set('Last-Modified', modified.toUTCString());
}

function exportHandler(kind: TeiKind): Handler {
  return async (ctx) => {
    const { db, clock } = ctx.state.deps;
    // The access step already chose the stricter rule when `ids` is present at all (even empty).
    if (ctx.query.ids !== undefined) {
      const ids = parseIds(ctx.query.ids);
      sendDocument(ctx, await regenerateEntries({ db, clock }, kind, ids));
      return;
    }
    sendDocument(ctx, await getExport({ db, clock }, kind));
  };
}

export const handlers: HandlerMap = {
  'GET /api/tei/refresh': async (ctx) => {
    const { db, clock } = ctx.state.deps;
    ctx.status = 200;
    ctx.body = { data: await refreshExports({ db, clock }) };
  },
  'GET /api/tei/actors': exportHandler('actors'),
  'GET /api/tei/places': exportHandler('places'),
  'GET /api/tei/keywords': exportHandler('keywords'),
};
