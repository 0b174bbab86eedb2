// /api/<kind>/reconcile (actors, places, keywords): the W3C Reconciliation API 0.2 as OpenRefine uses it.
// The endpoint answers the manifest (GET without parameters), reconciliation queries
// (`queries`) and data extension queries (`extend`), by GET or POST; beside it the suggest,
// property proposal and preview services the manifest points to. CORS and JSONP: ../cors.ts.
import { invalid } from '../../errors.js';
import { extend, proposeProperties } from '../../domain/catalog/reconcile/extend.js';
import { BatchTooLarge } from '../../domain/catalog/reconcile/input.js';
import { previewHtml } from '../../domain/catalog/reconcile/preview.js';
import {
  parseSuggestParams,
  suggestEntities,
  suggestProperties,
  suggestTypes,
} from '../../domain/catalog/reconcile/suggest.js';
import { manifest, RECONCILE_KINDS, reconcile, type ReconcileKind } from '../../domain/catalog/reconcile/service.js';
import { answerJson } from '../cors.js';
import { httpError } from '../errors.js';
import type { ApiContext, HandlerMap } from '../types.js';
import { baseUrl, bodyObject } from './input.js';

/** Reconciliation 0.2: a service MAY answer a batch larger than its `batchSize` with 413. */
async function sized<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof BatchTooLarge) throw httpError(413, `${err.message} (the manifest's batchSize)`);
    throw err;
  }
}

/** The endpoint: `queries` or `extend` (one of them), else the manifest. */
async function endpoint(
  ctx: ApiContext,
  kind: ReconcileKind,
  params: { queries: unknown; extend: unknown },
): Promise<void> {
  const { queries, extend: extension } = params;
  if (queries !== undefined && extension !== undefined) {
    throw invalid('invalid reconciliation request', { queries: 'give either queries or extend, not both' });
  }
  if (extension !== undefined) return answerJson(ctx, await sized(extend(ctx.state.deps, kind, extension)));
  if (queries !== undefined || ctx.method === 'POST')
    return answerJson(ctx, await sized(reconcile(ctx.state.deps, kind, queries)));
  // Queries need a token unless public_access is on: the manifest says how to send one.
  answerJson(ctx, manifest(kind, baseUrl(ctx), { authentication: !ctx.state.settings.public_access }));
}

function reconciliation(kind: ReconcileKind): HandlerMap {
  const path = `/api/${kind}/reconcile`;
  return {
    [`GET ${path}`]: (ctx) => endpoint(ctx, kind, { queries: ctx.query.queries, extend: ctx.query.extend }),
    [`POST ${path}`]: (ctx) => {
      const body = bodyObject(ctx);
      return endpoint(ctx, kind, {
        queries: body.queries ?? ctx.query.queries,
        extend: body.extend ?? ctx.query.extend,
      });
    },
    [`GET ${path}/suggest/entity`]: async (ctx) => {
      answerJson(ctx, await suggestEntities(ctx.state.deps, kind, parseSuggestParams(kind, ctx.query)));
    },
    [`GET ${path}/suggest/property`]: async (ctx) => {
      answerJson(ctx, suggestProperties(kind, parseSuggestParams(kind, ctx.query)));
    },
    [`GET ${path}/suggest/type`]: async (ctx) => {
      answerJson(ctx, suggestTypes(kind, parseSuggestParams(kind, ctx.query)));
    },
    [`GET ${path}/properties`]: async (ctx) => {
      answerJson(ctx, proposeProperties(kind, ctx.query));
    },
    [`GET ${path}/preview/:id`]: async (ctx) => {
      const html = await previewHtml(ctx.state.deps, kind, ctx.params.id ?? '');
      // Shown in an iframe of another origin: no script, no plugins, no sniffing.
      ctx.set(
        'Content-Security-Policy',
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
      );
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = html;
    },
  };
}

/** A service for each resource with a reconciliation projection (domain/catalog/resources/). */
export const handlers: HandlerMap = Object.fromEntries(
  RECONCILE_KINDS.flatMap((kind) => Object.entries(reconciliation(kind))),
);
