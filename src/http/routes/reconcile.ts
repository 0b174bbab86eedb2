// /api/<kind>/reconcile (actors, places, keywords): the W3C Reconciliation API 0.2 as OpenRefine
// uses it: the manifest, reconciliation (`queries`) and data extension (`extend`) queries by GET
// or POST, and the suggest, property proposal and preview services. CORS and JSONP: ../cors.ts.
// The 1.0-draft's services: reconcile-draft.ts. A batch is read by hand (reconcile/service.ts,
// extend.ts), so its description is written out here: the named exception to valibot schemas.
import { accessRow, reconcileRoot, type Heavy, type Method } from '../../domain/access.js';
import { invalid } from '../../errors.js';
import { extend, PROPOSE_PARAMS, proposeProperties } from '../../domain/catalog/reconcile/extend.js';
import { BatchTooLarge } from '../../domain/catalog/reconcile/input.js';
import { previewHtml } from '../../domain/catalog/reconcile/preview.js';
import {
  parseSuggestParams,
  SUGGEST_PARAMS,
  suggestEntities,
  suggestProperties,
  suggestTypes,
} from '../../domain/catalog/reconcile/suggest.js';
import { manifest, reconcile, type ReconcileKind } from '../../domain/catalog/reconcile/service.js';
import { answerJson } from '../cors.js';
import { httpError } from '../errors.js';
import { FORM_TYPE, JSON_TYPE, ref, type Answer, type QueryParameter, type Route, type Schema } from '../route.js';
import type { ApiContext } from '../types.js';
import { baseUrl, bodyObject } from './input.js';
import { BATCH, extendOf } from './reconcile-batches.js';

/** Reconciliation 0.2 and 1.0-draft: a service MAY answer a batch larger than its `batchSize` with 413. */
export async function sized<T>(work: Promise<T>): Promise<T> {
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

export function answerPreview(ctx: ApiContext, html: string): void {
  // Shown in an iframe of another origin: no script, no plugins, no sniffing.
  ctx.set({
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

/**
 * A route of a register's reconciliation service, under the register's authority rule: its POSTs
 * of queries only read (hence authority, not editor), and are open only while public_access is on
 * (public_api opens GET and HEAD). Cross-origin: OpenRefine calls it from its web page.
 */
export function service(
  kind: ReconcileKind,
  method: Method,
  path: string,
  declared: Omit<Route, keyof ReturnType<typeof accessRow>>,
  heavy?: Heavy,
): Route {
  const row = accessRow(method, `${reconcileRoot(kind)}${path}`, 'authority', kind, {
    access: 'read',
    crossOrigin: true,
    ...(heavy ? { heavy } : {}),
  });
  return { ...row, ...declared, summary: `${kind}: ${declared.summary}` };
}

const CALLBACK = '[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*';

/** JSONP (../cors.ts): the JSON answer, wrapped. */
const JSONP: Schema = {
  type: 'string',
  pattern: `^/\\*\\*/${CALLBACK}\\(.*\\);$`,
  description:
    'With `callback`: `/**/<callback>(<the application/json answer>);` (U+2028 and U+2029 escaped), ' +
    '`X-Content-Type-Options: nosniff`',
};

const CALLBACK_PARAMETER: QueryParameter = {
  name: 'callback',
  schema: { type: 'string', maxLength: 64, pattern: `^${CALLBACK}$` },
  description: 'JSONP: the answer is `/**/callback(json);`, typed application/javascript',
};

export const SUGGEST_WORDS: Record<string, string> = {
  prefix: 'what was typed so far ("" suggests no entity)',
  query: "`prefix` by another name (OpenRefine's suggest widget)",
  cursor: 'suggestions to skip',
  offset: 'suggestions to skip',
  limit: 'suggestions to answer',
  type: 'entities of this type only (its id or name)',
};

/** The service's answer: JSON, and JSONP when `jsonp`. */
export const documents = (schemas: Schema[], jsonp = false): Answer => ({
  description: "The service's answer",
  content: {
    [JSON_TYPE]: schemas.length === 1 ? (schemas[0] as Schema) : { oneOf: schemas },
    ...(jsonp ? { 'application/javascript': JSONP } : {}),
  },
});

export const PREVIEW: Answer = {
  description: 'The preview of the entity',
  content: { 'text/html': { type: 'string', description: 'an XHTML page of the entity, no script' } },
};

/** A JSON document sent as text (a query-string or form value): `contentSchema` is its value. */
const JSON_TEXT = (what: string, max: number, content: Schema): Schema => ({
  type: 'string',
  contentMediaType: 'application/json',
  contentSchema: content,
  maxLength: max,
  description: `${what}, as JSON text; not with ${what === 'a query batch' ? '`extend`' : '`queries`'}`,
});

const QUERIES_TEXT = JSON_TEXT('a query batch', 65536, BATCH);

/**
 * In the query string, the request's head is at most `limits.headerBytes` (16 KiB by default, 431
 * beyond): described as 4096 characters, which fit percent-encoded; a longer batch is posted.
 */
const batchParameters = (kind: ReconcileKind): QueryParameter[] => [
  { name: 'queries', schema: JSON_TEXT('a query batch', 4096, BATCH) },
  { name: 'extend', schema: JSON_TEXT('a data extension query', 4096, extendOf(kind)) },
];

/** A body of `queries` or `extend`, one of them (other fields are ignored, as other registers' 0.2 services do). */
const oneOfBatch = (queries: Schema, extend: Schema): Schema => ({
  type: 'object',
  properties: { queries, extend },
  oneOf: [
    { properties: { queries }, required: ['queries'] },
    { properties: { extend }, required: ['extend'] },
  ],
});

/** A 0.2 service's routes. */
export function reconciliationRoutes(kind: ReconcileKind): Route[] {
  const params = (ctx: ApiContext) => parseSuggestParams(kind, ctx.query);
  const suggest = (
    what: string,
    component: string,
    handler: Route['handler'],
  ): Omit<Route, 'method' | 'path' | 'rule' | 'access' | 'resource' | 'scope'> => ({
    summary: `Suggest ${what} (auto-completion)`,
    query: [SUGGEST_PARAMS, CALLBACK_PARAMETER],
    words: SUGGEST_WORDS,
    answers: { 200: documents([ref(component)], true), 422: 'Invalid' },
    handler,
  });
  return [
    service(
      kind,
      'GET',
      '',
      {
        summary: 'The service manifest; with `queries` a query batch, with `extend` a data extension query',
        query: [...batchParameters(kind), CALLBACK_PARAMETER],
        answers: {
          200: documents([ref('ReconcileManifest'), ref('ReconcileResults'), ref('ReconcileExtension')], true),
          413: 'TooLarge',
          422: 'Invalid',
        },
        handler: (ctx) => endpoint(ctx, kind, ctx.query.queries, ctx.query.extend),
      },
      'batch',
    ),
    service(
      kind,
      'POST',
      '',
      {
        summary: 'A query batch (`queries`) or a data extension query (`extend`)',
        // The query string is read only for a field the body lacks: a body gives one of them.
        query: [],
        body: {
          required: true,
          content: {
            [JSON_TYPE]: oneOfBatch(BATCH, extendOf(kind)),
            [FORM_TYPE]: oneOfBatch(QUERIES_TEXT, JSON_TEXT('a data extension query', 65536, extendOf(kind))),
          },
        },
        answers: {
          200: documents([ref('ReconcileResults'), ref('ReconcileExtension')]),
          413: 'TooLarge',
          422: 'Invalid',
        },
        handler: (ctx) => {
          const body = bodyObject(ctx);
          // A field given in the body, even null (refused by its parser), is the one read.
          const field = (name: 'queries' | 'extend') => (name in body ? body[name] : ctx.query[name]);
          return endpoint(ctx, kind, field('queries'), field('extend'));
        },
      },
      'batch',
    ),
    service(
      kind,
      'GET',
      '/suggest/entity',
      suggest('entities', 'ReconcileSuggestedEntities', async (ctx) =>
        answerJson(ctx, await suggestEntities(ctx.state.deps, kind, params(ctx))),
      ),
    ),
    service(
      kind,
      'GET',
      '/suggest/property',
      suggest('properties', 'ReconcileSuggestedProperties', async (ctx) =>
        answerJson(ctx, suggestProperties(kind, params(ctx))),
      ),
    ),
    service(
      kind,
      'GET',
      '/suggest/type',
      suggest('types', 'ReconcileSuggestedTypes', async (ctx) => answerJson(ctx, suggestTypes(kind, params(ctx)))),
    ),
    service(kind, 'GET', '/properties', {
      summary: 'Propose properties for data extension',
      query: [PROPOSE_PARAMS, CALLBACK_PARAMETER],
      answers: { 200: documents([ref('ReconcilePropertyProposal')], true), 422: 'Invalid' },
      handler: async (ctx) => answerJson(ctx, proposeProperties(kind, ctx.query)),
    }),
    service(kind, 'GET', '/preview/:id', {
      summary: 'The preview of an entity (HTML, shown in an iframe)',
      query: [],
      id: 'text',
      answers: { 200: PREVIEW, 404: 'NotFound' },
      handler: async (ctx) => answerPreview(ctx, await previewHtml(ctx.state.deps, kind, ctx.params.id ?? '')),
    }),
  ];
}
