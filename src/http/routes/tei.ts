// TEI exports (docs/http-api.md, issue 9), never stale: a GET rebuilds an export whose rows changed since
// it was stored (domain/catalog/tei/exports.ts); /refresh rebuilds in any case, `ids` checks its
// ids first. Conditional GET: a strong ETag (the content's SHA-256) and Last-Modified (when the
// content last changed). HEAD is answered by Koa from the GET handler.
import {
  checkIds,
  currentExport,
  openExport,
  parseIds,
  refreshExports,
  TEI_KINDS,
  type ExportCtx,
  type TeiExportMeta,
  type TeiKind,
} from '../../domain/catalog/tei/exports.js';
import { accessRow } from '../../domain/access.js';
import { exportsDir } from '../../domain/catalog/export-file.js';
import { floorSecond, notModified } from '../conditional.js';
import { sendFile } from '../send-file.js';
import { dataOf, JSON_TYPE, type Answer, type Route } from '../route.js';
import type { ApiContext, Handler } from '../types.js';

const entityTag = (meta: TeiExportMeta): string => `"${meta.etag}"`;

/** ETag, and Last-Modified when `stored`, never later than the answer (RFC 9110 §8.8.2.1). */
function setValidators(ctx: ApiContext, meta: TeiExportMeta): void {
  ctx.set('ETag', entityTag(meta));
  const at = Date.parse(meta.modifiedAt);
  const now = ctx.state.deps.clock.now().getTime();
  if (meta.stored && !Number.isNaN(at))
    ctx.set('Last-Modified', new Date(Math.min(floorSecond(at), floorSecond(now))).toUTCString());
  // Any cache must ask again each time (a 304 costs two one-row reads): the export changes
  // with the catalogue, and access to it with the settings.
  ctx.set('Cache-Control', 'no-cache');
}

const exportCtx = (ctx: ApiContext): ExportCtx => {
  const { db, clock, config } = ctx.state.deps;
  return { db, clock, dir: exportsDir(config.dataDir) };
};

function exportHandler(kind: TeiKind): Handler {
  return async (ctx) => {
    const deps = exportCtx(ctx);
    // The access step already chose the stricter rule when `ids` is present at all (even empty).
    if (ctx.query.ids !== undefined) await checkIds(deps, kind, parseIds(ctx.query.ids));
    const meta = await currentExport(deps, kind);
    if (notModified(ctx, entityTag(meta), meta.stored ? new Date(meta.modifiedAt) : null)) {
      setValidators(ctx, meta);
      ctx.status = 304;
      return;
    }
    // The file is opened only when the client does not have the content already.
    const { exp, handle } = await openExport(deps, meta);
    await sendFile(ctx, handle, 'application/tei+xml; charset=utf-8');
    setValidators(ctx, exp);
  };
}

const VALIDATED: Answer = {
  description: 'Not modified (If-None-Match, If-Modified-Since)',
  headers: ['ETag', 'LastModified'],
};

/** An export: authority, but regenerating given `ids` needs a token with `tei:refresh`. */
const exportRoute = (kind: TeiKind): Route => ({
  ...accessRow('GET', `/api/tei/${kind}`, 'authority', 'tei', {
    ruleWithIds: 'token',
    scopeWithIds: 'tei:refresh',
    heavy: 'export',
  }),
  summary: `The TEI export of ${kind}, rebuilt when its rows changed`,
  query: [
    {
      name: 'ids',
      schema: { type: 'string', maxLength: 65536, pattern: '^[1-9][0-9]{0,15}( *, *[1-9][0-9]{0,15})*$' },
      description: 'regenerate those entries (every id must exist): needs a token',
    },
  ],
  answers: {
    200: {
      description: 'The TEI document',
      content: { 'application/tei+xml': { type: 'string' } },
      headers: ['ETag', 'LastModified'],
    },
    304: VALIDATED,
    404: 'NotFound',
    422: 'Invalid',
  },
  handler: exportHandler(kind),
});

export const routes: Route[] = [
  // Rebuilds the exports from the catalogue, which it does not change: a read, but one that costs
  // a rebuild, so it has a scope of its own.
  {
    ...accessRow('GET', '/api/tei/refresh', 'token', 'tei', { heavy: 'export', scope: 'tei:refresh' }),
    summary: 'Rebuild every TEI export; answers the number of entries of each',
    query: [],
    answers: {
      200: {
        description: 'Entries by export',
        content: {
          [JSON_TYPE]: dataOf({
            type: 'object',
            additionalProperties: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          }),
        },
      },
    },
    handler: async (ctx) => {
      ctx.body = { data: await refreshExports(exportCtx(ctx)) };
    },
  },
];

/** An export for each resource with a TEI projection (domain/catalog/resources/), after the others. */
export const exportRoutes: Route[] = TEI_KINDS.map(exportRoute);
