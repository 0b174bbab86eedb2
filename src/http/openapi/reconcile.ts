// The reconciliation services in the description: each endpoint of Reconciliation API 0.2
// (`/api/<kind>/reconcile…`) and 1.0-draft (`…/reconcile/1.0-draft…`) with the documents it
// answers, converted field by field from the valibot schemas the services' return types are
// inferred from (domain/catalog/reconcile/answers.ts, v1/answers.ts), its query parameters from
// the schemas the handlers parse with, and JSONP where 0.2 offers it.
import type { RouteSpec } from '../../domain/access.js';
import * as answers from '../../domain/catalog/reconcile/answers.js';
import { MAX_EXTEND_IDS, PROPOSE_PARAMS } from '../../domain/catalog/reconcile/extend.js';
import { MAX_QUERIES } from '../../domain/catalog/reconcile/input.js';
import { DRAFT_SUGGEST_PARAMS, SUGGEST_PARAMS } from '../../domain/catalog/reconcile/suggest.js';
import * as draft from '../../domain/catalog/reconcile/v1/answers.js';
import { ref } from './components.js';
import { componentSchemas, type Schema } from './json-schema.js';
import { json, ok, queryParameters, response, type Described } from './parts.js';

/** The documents, by their component names (shared parts first: the others refer to them). */
export const reconcileSchemas = (): Record<string, Schema> =>
  componentSchemas({
    ReconcileType: answers.TYPE_REF,
    ReconcileValue: answers.PROPERTY_VALUE,
    ReconcileCandidate: answers.CANDIDATE,
    ReconcileSecurityScheme: answers.SECURITY_SCHEME,
    ReconcileManifest: answers.MANIFEST,
    ReconcileResults: answers.RESULT_BATCH,
    ReconcileExtension: answers.EXTENSION,
    ReconcilePropertyProposal: answers.PROPERTY_PROPOSAL,
    ReconcileSuggestedEntities: answers.SUGGESTED_ENTITIES,
    ReconcileSuggestedProperties: answers.SUGGESTED_PROPERTIES,
    ReconcileSuggestedTypes: answers.SUGGESTED_TYPES,
    ReconcileDraftManifest: draft.DRAFT_MANIFEST,
    ReconcileDraftResults: draft.DRAFT_RESULTS,
    ReconcileDraftExtension: draft.DRAFT_EXTENSION,
  });

const CALLBACK = '[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*';

/** JSONP (../cors.ts): the JSON answer, wrapped; the test helpers unwrap it and judge the JSON. */
const JSONP: Schema = {
  type: 'string',
  pattern: `^/\\*\\*/${CALLBACK}\\(.*\\);$`,
  description:
    'With `callback`: `/**/<callback>(<the application/json answer>);` (U+2028 and U+2029 escaped), ' +
    '`X-Content-Type-Options: nosniff`',
};

const CALLBACK_PARAMETER: Schema = {
  name: 'callback',
  in: 'query',
  required: false,
  schema: { type: 'string', maxLength: 64, pattern: `^${CALLBACK}$` },
  description: 'JSONP: the answer is `/**/callback(json);`, typed application/javascript',
};

const SUGGEST_WORDS: Record<string, string> = {
  prefix: 'what was typed so far ("" suggests no entity)',
  query: "`prefix` by another name (OpenRefine's suggest widget)",
  cursor: 'suggestions to skip',
  offset: 'suggestions to skip',
  limit: 'suggestions to answer',
  type: 'entities of this type only (its id or name)',
};

const JSON_TEXT = (what: string): Schema => ({
  type: 'string',
  contentMediaType: 'application/json',
  description: `${what}, as JSON text`,
});

/** What a 0.2 endpoint reads beside its query string: JSON, or a form whose fields are JSON text. */
const BATCH_BODY: Schema = {
  required: false,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          queries: { type: 'object', description: 'a query batch: `{"q0": {"query": …}, …}`' },
          extend: { type: 'object', description: 'a data extension query: `{"ids": […], "properties": [{"id"}]}`' },
        },
      },
    },
    'application/x-www-form-urlencoded': {
      schema: {
        type: 'object',
        properties: { queries: JSON_TEXT('a query batch'), extend: JSON_TEXT('a data extension query') },
      },
    },
  },
};

/** The 1.0-draft's bodies: JSON only (a form is a 415). */
const draftBody = (schema: Schema): Schema => ({ required: true, content: json(schema) });

const MATCH_BODY: Schema = {
  type: 'object',
  properties: {
    queries: {
      type: 'array',
      maxItems: MAX_QUERIES,
      items: { type: 'object', description: 'a query: `{"conditions": [{"matchType", "propertyValue", …}], …}`' },
    },
  },
  required: ['queries'],
};

const EXTEND_BODY: Schema = {
  type: 'object',
  properties: {
    ids: { type: 'array', maxItems: MAX_EXTEND_IDS, items: { type: 'string', maxLength: 64 } },
    properties: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'string' }, settings: { type: 'object' } },
        required: ['id'],
      },
    },
  },
  required: ['ids', 'properties'],
};

const HTML = { 'text/html': { schema: { type: 'string', description: 'an XHTML page of the entity, no script' } } };

/** One answer that is JSON, and JSONP when `jsonp`. */
const documents = (schemas: Schema[], jsonp: boolean): Schema => ({
  ...json(schemas.length === 1 ? (schemas[0] as Schema) : { oneOf: schemas }),
  ...(jsonp ? { 'application/javascript': { schema: JSONP } } : {}),
});

interface Endpoint {
  summary: string;
  answer: Schema;
  parameters?: Schema[];
  requestBody?: Schema;
  /** A batch: larger than `batchSize` is a 413. */
  batch?: true;
  /** Reads input it may refuse (422). */
  refuses?: true;
}

/** What each suggest service offers, and the component describing its answer. */
const SUGGESTED = {
  entity: ['entities', 'ReconcileSuggestedEntities'],
  property: ['properties', 'ReconcileSuggestedProperties'],
  type: ['types', 'ReconcileSuggestedTypes'],
} as const;

/** The endpoints under a service's root, by method and the path below the root. */
function endpoint(method: string, tail: string): Endpoint | undefined {
  const jsonp = method === 'GET';
  const suggest = (what: string, name: string, params: typeof SUGGEST_PARAMS | typeof DRAFT_SUGGEST_PARAMS) => ({
    summary: `Suggest ${what} (auto-completion)`,
    answer: documents([ref(name)], jsonp && !tail.startsWith('1.0-draft')),
    parameters: queryParameters(params, SUGGEST_WORDS),
    refuses: true as const,
  });
  switch (`${method} ${tail}`) {
    case 'GET ':
      return {
        summary: 'The service manifest; with `queries` a query batch, with `extend` a data extension query',
        answer: documents([ref('ReconcileManifest'), ref('ReconcileResults'), ref('ReconcileExtension')], true),
        parameters: [
          { name: 'queries', in: 'query', required: false, schema: JSON_TEXT('a query batch') },
          { name: 'extend', in: 'query', required: false, schema: JSON_TEXT('a data extension query') },
        ],
        batch: true,
        refuses: true,
      };
    case 'POST ':
      return {
        summary: 'A query batch (`queries`) or a data extension query (`extend`)',
        answer: documents([ref('ReconcileResults'), ref('ReconcileExtension')], false),
        requestBody: BATCH_BODY,
        batch: true,
        refuses: true,
      };
    case 'GET suggest/entity':
    case 'GET 1.0-draft/suggest/entity':
    case 'GET suggest/property':
    case 'GET 1.0-draft/suggest/property':
    case 'GET suggest/type':
    case 'GET 1.0-draft/suggest/type': {
      const [noun, component] = SUGGESTED[tail.slice(tail.lastIndexOf('/') + 1) as keyof typeof SUGGESTED];
      return suggest(noun, component, tail.startsWith('1.0') ? DRAFT_SUGGEST_PARAMS : SUGGEST_PARAMS);
    }
    case 'GET properties':
    case 'GET 1.0-draft/extend/propose': {
      const parameters = queryParameters(PROPOSE_PARAMS);
      // The draft requires the type (v1/extend.ts).
      if (tail !== 'properties') for (const p of parameters) if (p.name === 'type') p.required = true;
      return {
        summary: 'Propose properties for data extension',
        answer: documents([ref('ReconcilePropertyProposal')], tail === 'properties'),
        parameters,
        refuses: true,
      };
    }
    case 'GET preview/:id':
      return { summary: 'The preview of an entity (HTML, shown in an iframe)', answer: HTML };
    case 'GET 1.0-draft/preview':
      return {
        summary: 'The preview of an entity (HTML, shown in an iframe)',
        answer: HTML,
        parameters: [{ name: 'id', in: 'query', required: true, schema: { type: 'string', minLength: 1 } }],
        refuses: true,
      };
    case 'GET 1.0-draft':
      return { summary: 'The service manifest (1.0-draft)', answer: documents([ref('ReconcileDraftManifest')], false) };
    case 'POST 1.0-draft/match':
      return {
        summary: 'A query batch (1.0-draft)',
        answer: documents([ref('ReconcileDraftResults')], false),
        requestBody: draftBody(MATCH_BODY),
        batch: true,
        refuses: true,
      };
    case 'POST 1.0-draft/extend':
      return {
        summary: 'A data extension query (1.0-draft)',
        answer: documents([ref('ReconcileDraftExtension')], false),
        requestBody: draftBody(EXTEND_BODY),
        batch: true,
        refuses: true,
      };
  }
  return undefined;
}

export function reconciliation(route: RouteSpec): Described {
  const [, , kind, , ...rest] = route.path.split('/');
  const tail = rest.join('/');
  const e = endpoint(route.method, tail);
  if (!e) throw new Error(`the description does not know ${route.method} ${route.path}`);
  const jsonp = 'application/javascript' in e.answer;
  return {
    summary: `${kind}: ${e.summary}`,
    parameters: [...(e.parameters ?? []), ...(jsonp ? [CALLBACK_PARAMETER] : [])],
    ...(e.requestBody ? { requestBody: e.requestBody } : {}),
    responses: {
      200: ok("The service's answer", e.answer),
      ...(e.answer === HTML ? { 404: response('NotFound') } : {}),
      ...(e.batch ? { 413: response('TooLarge') } : {}),
      ...(e.refuses || jsonp ? { 422: response('Invalid') } : {}),
    },
  };
}
