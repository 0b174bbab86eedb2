// TEI exports (SPEC §4.4, issue 9). Never stale: a plain GET rebuilds an export whose rows
// changed since it was stored (see domain/catalog/tei.ts); `ids` and /refresh rebuild in any
// case. Conditional GET: a strong ETag (the content's SHA-256) and Last-Modified (when the
// content last changed); If-None-Match, else If-Modified-Since, answers 304 without a body.
// HEAD is answered by Koa from the GET handler (same headers, no body).
import {
  currentExport,
  parseIds,
  readExport,
  refreshExports,
  regenerateEntries,
  TEI_KINDS,
  type TeiExport,
  type TeiExportMeta,
  type TeiKind,
} from '../../domain/catalog/tei/exports.js';
import { floorSecond, notModified } from '../conditional.js';
import type { ApiContext, Handler, HandlerMap } from '../types.js';

export const TEI_CONTENT_TYPE = 'application/tei+xml; charset=utf-8';

const entityTag = (meta: TeiExportMeta): string => `"${meta.etag}"`;

/**
 * Last-Modified: when the content last changed, but never later than the answer's own time
 * (RFC 9110 §8.8.2.1); none for an export whose time is not reliable (see TeiExportMeta.stored).
 */
function lastModified(meta: TeiExportMeta, now: Date): string | null {
  const at = Date.parse(meta.modifiedAt);
  if (!meta.stored || Number.isNaN(at)) return null;
  return new Date(Math.min(floorSecond(at), floorSecond(now.getTime()))).toUTCString();
}

/** The content's last change, when it can be relied on (see TeiExportMeta.stored). */
function modifiedAt(meta: TeiExportMeta): Date | null {
  return meta.stored ? new Date(meta.modifiedAt) : null;
}

function setValidators(ctx: ApiContext, meta: TeiExportMeta): void {
  ctx.set('ETag', entityTag(meta));
  const lm = lastModified(meta, ctx.state.deps.clock.now());
  if (lm) ctx.set('Last-Modified', lm);
  // Any cache must ask again each time (a 304 costs two one-row reads): the export changes
  // with the catalogue, and access to it with the settings.
  ctx.set('Cache-Control', 'no-cache');
}

function send(
  ctx: ApiContext,
  meta: TeiExportMeta,
  document: () => Promise<TeiExport> | TeiExport,
): Promise<void> | void {
  if (notModified(ctx, entityTag(meta), modifiedAt(meta))) {
    setValidators(ctx, meta);
    ctx.status = 304;
    return;
  }
  const answer = (exp: TeiExport): void => {
    ctx.status = 200;
    ctx.body = exp.document;
    // Set after the body: assigning a string body would otherwise pick text/html for "<?xml".
    ctx.set('Content-Type', TEI_CONTENT_TYPE);
    setValidators(ctx, exp);
  };
  const exp = document();
  return exp instanceof Promise ? exp.then(answer) : answer(exp);
}

function exportHandler(kind: TeiKind): Handler {
  return async (ctx) => {
    const { db, clock } = ctx.state.deps;
    // The access step already chose the stricter rule when `ids` is present at all (even empty).
    if (ctx.query.ids !== undefined) {
      const ids = parseIds(ctx.query.ids);
      const exp = await regenerateEntries({ db, clock }, kind, ids);
      await send(ctx, exp, () => exp);
      return;
    }
    const meta = await currentExport({ db, clock }, kind);
    const { document } = meta;
    // The document is read only when the client does not have it already.
    await send(ctx, meta, () => (document !== undefined ? { ...meta, document } : readExport({ db, clock }, kind)));
  };
}

export const handlers: HandlerMap = {
  'GET /api/tei/refresh': async (ctx) => {
    const { db, clock } = ctx.state.deps;
    ctx.status = 200;
    ctx.body = { data: await refreshExports({ db, clock }) };
  },
  // An export for each resource with a TEI projection (domain/catalog/resources/).
  ...Object.fromEntries(TEI_KINDS.map((kind) => [`GET /api/tei/${kind}`, exportHandler(kind)])),
};
