// /api/<kind>/reconcile/1.0-draft: the services of reconcile.ts as the 1.0-draft names them,
// under that root. JSON bodies only (a form is a 415), and no JSONP (the draft drops it).
import { PROPOSE_PARAMS } from '../../domain/catalog/reconcile/extend.js';
import { previewHtml } from '../../domain/catalog/reconcile/preview.js';
import {
  DRAFT_SUGGEST_PARAMS,
  parseDraftSuggestParams,
  suggestEntities,
  suggestProperties,
  suggestTypes,
} from '../../domain/catalog/reconcile/suggest.js';
import type { ReconcileKind } from '../../domain/catalog/reconcile/service.js';
import { extendDraft, proposeDraftProperties } from '../../domain/catalog/reconcile/v1/extend.js';
import { draftManifest, DRAFT_VERSION } from '../../domain/catalog/reconcile/v1/manifest.js';
import { matchDraft } from '../../domain/catalog/reconcile/v1/match.js';
import { invalid } from '../../errors.js';
import { v } from '../../validation.js';
import { httpError } from '../errors.js';
import { JSON_TYPE, ref, type Route } from '../route.js';
import type { ApiContext, Handler } from '../types.js';
import { baseUrl } from './input.js';
import { extendOf, MATCH } from './reconcile-batches.js';
import { answerPreview, documents, PREVIEW, service, sized, SUGGEST_WORDS } from './reconcile.js';

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
export function draftRoutes(kind: ReconcileKind): Route[] {
  const params = (ctx: ApiContext) => parseDraftSuggestParams(kind, ctx.query);
  const at = (path: string) => `/${DRAFT_VERSION}${path}`;
  const suggest = (path: string, what: string, component: string, make: (ctx: ApiContext) => unknown) =>
    service(kind, 'GET', at(`/suggest/${path}`), {
      summary: `Suggest ${what} (auto-completion)`,
      query: [DRAFT_SUGGEST_PARAMS],
      words: SUGGEST_WORDS,
      answers: { 200: documents([ref(component)]), 422: 'Invalid' },
      handler: answer(make),
    });
  return [
    service(kind, 'GET', at(''), {
      summary: 'The service manifest (1.0-draft)',
      query: [],
      answers: { 200: documents([ref('ReconcileDraftManifest')]) },
      handler: answer((ctx) =>
        draftManifest(kind, baseUrl(ctx), { authentication: !ctx.state.settings.public_access }),
      ),
    }),
    service(
      kind,
      'POST',
      at('/match'),
      {
        summary: 'A query batch (1.0-draft)',
        query: [],
        body: { required: true, content: { [JSON_TYPE]: MATCH } },
        answers: { 200: documents([ref('ReconcileDraftResults')]), 413: 'TooLarge', 422: 'Invalid' },
        handler: answer((ctx) => sized(matchDraft(ctx.state.deps, kind, jsonBody(ctx)))),
      },
      'draft-match',
    ),
    suggest('entity', 'entities', 'ReconcileSuggestedEntities', (ctx) =>
      suggestEntities(ctx.state.deps, kind, params(ctx)),
    ),
    suggest('property', 'properties', 'ReconcileSuggestedProperties', (ctx) => suggestProperties(kind, params(ctx))),
    suggest('type', 'types', 'ReconcileSuggestedTypes', (ctx) => suggestTypes(kind, params(ctx))),
    service(kind, 'GET', at('/preview'), {
      summary: 'The preview of an entity (HTML, shown in an iframe)',
      query: [{ name: 'id', required: true, schema: { type: 'string', minLength: 1, maxLength: 255 } }],
      answers: { 200: PREVIEW, 404: 'NotFound', 422: 'Invalid' },
      handler: async (ctx) => answerPreview(ctx, await previewHtml(ctx.state.deps, kind, idQuery(ctx))),
    }),
    service(
      kind,
      'POST',
      at('/extend'),
      {
        summary: 'A data extension query (1.0-draft)',
        query: [],
        body: { required: true, content: { [JSON_TYPE]: extendOf(kind) } },
        answers: { 200: documents([ref('ReconcileDraftExtension')]), 413: 'TooLarge', 422: 'Invalid' },
        handler: answer((ctx) => sized(extendDraft(ctx.state.deps, kind, jsonBody(ctx)))),
      },
      'draft-extend',
    ),
    service(kind, 'GET', at('/extend/propose'), {
      summary: 'Propose properties for data extension',
      // 0.2's parameters, and the draft requires the type (v1/extend.ts).
      query: [
        { name: 'type', required: true, schema: { type: 'string', minLength: 1, maxLength: 255 } },
        v.pick(PROPOSE_PARAMS, ['limit']),
      ],
      answers: { 200: documents([ref('ReconcilePropertyProposal')]), 422: 'Invalid' },
      handler: answer((ctx) => proposeDraftProperties(kind, ctx.query)),
    }),
  ];
}
