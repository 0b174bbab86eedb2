// /api/<kind>/reconcile (actors, places, keywords): the W3C Reconciliation API 0.2 as OpenRefine
// uses it: the manifest, reconciliation (`queries`) and data extension (`extend`) queries by GET
// or POST, and the suggest, property proposal and preview services. CORS and JSONP: ../cors.ts.
// /api/<kind>/reconcile/1.0-draft: the same services as the 1.0-draft names them, under that
// root. JSON bodies only, and no JSONP (the draft drops it).
import { reconcileRoot } from '../../domain/access.js';
import { invalid } from '../../errors.js';
import { extend, proposeProperties } from '../../domain/catalog/reconcile/extend.js';
import { BatchTooLarge } from '../../domain/catalog/reconcile/input.js';
import { previewHtml } from '../../domain/catalog/reconcile/preview.js';
import {
  parseDraftSuggestParams,
  parseSuggestParams,
  suggestEntities,
  suggestProperties,
  suggestTypes,
} from '../../domain/catalog/reconcile/suggest.js';
import { manifest, RECONCILE_KINDS, reconcile, type ReconcileKind } from '../../domain/catalog/reconcile/service.js';
import { extendDraft, proposeDraftProperties } from '../../domain/catalog/reconcile/v1/extend.js';
import { draftManifest, draftRoot } from '../../domain/catalog/reconcile/v1/manifest.js';
import { matchDraft } from '../../domain/catalog/reconcile/v1/match.js';
import { answerJson } from '../cors.js';
import { httpError } from '../errors.js';
import type { ApiContext, Handler, HandlerMap } from '../types.js';
import { baseUrl, bodyObject } from './input.js';

/** Reconciliation 0.2 and 1.0-draft: a service MAY answer a batch larger than its `batchSize` with 413. */
async function sized<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof BatchTooLarge) throw httpError(413, `${err.message} (the manifest's batchSize)`);
    throw err;
  }
}

/** The endpoint: `queries` or `extend` (one of them), else the manifest. */
async function endpoint(ctx: ApiContext, kind: ReconcileKind, queries: unknown, extension: unknown): Promise<void> {
  if (queries !== undefined && extension !== undefined)
    throw invalid('invalid reconciliation request', { queries: 'give either queries or extend, not both' });
  if (extension !== undefined) return answerJson(ctx, await sized(extend(ctx.state.deps, kind, extension)));
  if (queries !== undefined || ctx.method === 'POST')
    return answerJson(ctx, await sized(reconcile(ctx.state.deps, kind, queries)));
  // Queries need a token unless public_access is on: the manifest says how to send one.
  answerJson(ctx, manifest(kind, baseUrl(ctx), { authentication: !ctx.state.settings.public_access }));
}

function reconciliation(kind: ReconcileKind): HandlerMap {
  const path = reconcileRoot(kind);
  const params = (ctx: ApiContext) => parseSuggestParams(kind, ctx.query);
  return {
    [`GET ${path}`]: (ctx) => endpoint(ctx, kind, ctx.query.queries, ctx.query.extend),
    [`POST ${path}`]: (ctx) => {
      const body = bodyObject(ctx);
      // A field given in the body, even null (refused by its parser), is the one read.
      const field = (name: 'queries' | 'extend') => (name in body ? body[name] : ctx.query[name]);
      return endpoint(ctx, kind, field('queries'), field('extend'));
    },
    [`GET ${path}/suggest/entity`]: async (ctx) =>
      answerJson(ctx, await suggestEntities(ctx.state.deps, kind, params(ctx))),
    [`GET ${path}/suggest/property`]: async (ctx) => answerJson(ctx, suggestProperties(kind, params(ctx))),
    [`GET ${path}/suggest/type`]: async (ctx) => answerJson(ctx, suggestTypes(kind, params(ctx))),
    [`GET ${path}/properties`]: async (ctx) => answerJson(ctx, proposeProperties(kind, ctx.query)),
    [`GET ${path}/preview/:id`]: async (ctx) =>
      answerPreview(ctx, await previewHtml(ctx.state.deps, kind, ctx.params.id ?? '')),
  };
}

function answerPreview(ctx: ApiContext, html: string): void {
  // Shown in an iframe of another origin: no script, no plugins, no sniffing.
  ctx.set({
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

/** A 1.0-draft POST's JSON body (the draft sends only JSON), or undefined without one; else 415. */
function jsonBody(ctx: ApiContext): unknown {
  const body = ctx.state.body;
  if (body.kind === 'json') return body.data;
  if (body.kind === 'none') return undefined;
  throw httpError(415, 'send the request as a JSON body (Content-Type: application/json)');
}

/** `?id=`: given once. */
function idQuery(ctx: ApiContext): string {
  const id = ctx.query.id;
  if (typeof id !== 'string' || id === '')
    throw invalid('invalid preview request', { id: 'required, given once: the id of the entity' });
  return id;
}

/** A handler whose answer is what `make` gives. */
function answer(make: (ctx: ApiContext) => unknown): Handler {
  return async (ctx) => {
    ctx.body = await make(ctx);
  };
}

/** The 1.0-draft services of a register, under their root. */
function draft(kind: ReconcileKind): HandlerMap {
  const root = draftRoot(kind);
  const params = (ctx: ApiContext) => parseDraftSuggestParams(kind, ctx.query);
  return {
    [`GET ${root}`]: answer((ctx) =>
      draftManifest(kind, baseUrl(ctx), { authentication: !ctx.state.settings.public_access }),
    ),
    [`POST ${root}/match`]: answer((ctx) => sized(matchDraft(ctx.state.deps, kind, jsonBody(ctx)))),
    [`GET ${root}/suggest/entity`]: answer((ctx) => suggestEntities(ctx.state.deps, kind, params(ctx))),
    [`GET ${root}/suggest/property`]: answer((ctx) => suggestProperties(kind, params(ctx))),
    [`GET ${root}/suggest/type`]: answer((ctx) => suggestTypes(kind, params(ctx))),
    [`GET ${root}/preview`]: async (ctx) => answerPreview(ctx, await previewHtml(ctx.state.deps, kind, idQuery(ctx))),
    [`POST ${root}/extend`]: answer((ctx) => sized(extendDraft(ctx.state.deps, kind, jsonBody(ctx)))),
    [`GET ${root}/extend/propose`]: answer((ctx) => proposeDraftProperties(kind, ctx.query)),
  };
}

/** A service for each resource with a reconciliation projection (domain/catalog/resources/). */
export const handlers: HandlerMap = Object.fromEntries(
  RECONCILE_KINDS.flatMap((kind) => [...Object.entries(reconciliation(kind)), ...Object.entries(draft(kind))]),
);
