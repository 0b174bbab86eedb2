// One operation of the description for each row of the access matrix (ROUTES): its parameters
// from the valibot schemas the handler parses with, its answers from the envelopes the handler
// writes. A row this file does not know fails the build of the document, so a new route cannot
// go undescribed.
import { displayPath, REPORT_BYTES, RULE_TEXT, type RouteSpec, type Rule } from '../../domain/access.js';
import { AUTHORITY_TYPE_PARAM } from '../../domain/catalog/anton/fields.js';
import { providerSchema } from '../../domain/catalog/list/beacon.js';
import { listParams } from '../../domain/catalog/list/query.js';
import { IDENTIFIER_PARAM } from '../../domain/catalog/objects.js';
import { RESOURCES, type AnyResource } from '../../domain/catalog/resources/index.js';
import { MAX_REPORTED_VALUES } from '../../domain/tokens/report.js';
import { dataOf, listOf, recordName, ref } from './components.js';
import type { Schema } from './json-schema.js';
import { body, header, json, ok, queryParameters, response, type Answers, type Described } from './parts.js';
import { reconciliation } from './reconcile.js';

/** getActorsById, postActorsReconcile10DraftMatch: stable, from the method and the path. */
export function operationId(route: Pick<RouteSpec, 'method' | 'path'>): string {
  const words = route.path
    .replace(/^\/api\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  const name = words.map((w) => `${w[0]?.toUpperCase()}${w.slice(1)}`).join('');
  return `${route.method.toLowerCase()}${name || 'Index'}`;
}

const LIST_WORDS: Record<string, string> = {
  search: 'a case-insensitive substring of the searched names',
  page: 'the page, from 1 (not with `cursor`)',
  perPage: 'entries a page',
  sortField: 'the sort',
  sortAsc: '1/true ascending, 0/false descending',
  format: '`json` (`{data, meta}`), `select2` (`{results, pagination}`) or `beacon` (a BEACON link dump, text/plain)',
  cursor: "keyset paging: `start`, then each answer's `meta.next_cursor`",
  provider: 'with `format=beacon`: the authority file whose ids the dump links',
  authority_type: 'a type: its code, label or `type_id` (Anton)',
  identifier: 'the object with exactly this identifier (Anton)',
};

function listParameters(r: AnyResource): Schema[] {
  const params = [...queryParameters(listParams(r.listOptions), LIST_WORDS)];
  if (r.beacon) params.push(...queryParameters(providerSchema(r.beacon.providers), LIST_WORDS));
  if (r.table === 'actors') params.push(...queryParameters(AUTHORITY_TYPE_PARAM, LIST_WORDS));
  if (r.table === 'objects') params.push(...queryParameters(IDENTIFIER_PARAM, LIST_WORDS));
  return params;
}

const ID_PARAMETER: Schema = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'integer', minimum: 1 },
  description: 'the row id; anything else names no row (404)',
};

function catalogue(route: RouteSpec, r: AnyResource): Described | undefined {
  const base = `/api/${r.table}`;
  const record = ref(recordName(r));
  const what = r.what;
  if (route.path === base && route.method === 'GET') {
    const content: Schema = {
      'application/json': { schema: { oneOf: [listOf(record), ref('Select2')] } },
      ...(r.beacon ? { 'text/plain': { schema: { type: 'string', description: 'a BEACON link dump' } } } : {}),
    };
    return {
      summary: `List ${r.table}`,
      parameters: listParameters(r),
      responses: {
        200: ok(
          r.beacon ? `A page of ${r.table} (Link), or the BEACON dump (ETag, Last-Modified)` : `A page of ${r.table}`,
          content,
          {
            Link: header('Link'),
            ...(r.beacon ? { ETag: header('ETag'), 'Last-Modified': header('LastModified') } : {}),
          },
        ),
        ...(r.beacon
          ? {
              304: {
                description: 'The BEACON dump is unchanged (If-None-Match, If-Modified-Since)',
                headers: { ETag: header('ETag'), 'Last-Modified': header('LastModified') },
              },
            }
          : {}),
        422: response('Invalid'),
      },
    };
  }
  if (route.path === base && route.method === 'POST')
    return {
      summary: `Create ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}`,
      requestBody: body(ref(`${recordName(r)}Create`)),
      responses: {
        201: ok(`The new ${what}`, json(dataOf(record)), { Location: header('Location') }),
        422: response('Invalid'),
      },
    };
  if (route.path === `${base}/:id` && route.method === 'GET')
    return {
      summary: `Read one ${what}`,
      responses: { 200: ok(`The ${what}`, json(dataOf(record))), 404: response('NotFound') },
    };
  if (route.path === `${base}/:id`)
    return {
      summary: `Change ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what} (the fields given)`,
      requestBody: body(ref(`${recordName(r)}Change`)),
      responses: {
        200: ok(`The changed ${what}`, json(dataOf(record))),
        404: response('NotFound'),
        422: response('Invalid'),
      },
    };
  return undefined;
}

function special(route: RouteSpec): Described | undefined {
  const key = `${route.method} ${route.path}`;
  const tei = /^GET \/api\/tei\/(\w+)$/.exec(key);
  if (tei && tei[1] !== 'refresh')
    return {
      summary: `The TEI export of ${tei[1]}, rebuilt when its rows changed`,
      parameters: [
        {
          name: 'ids',
          in: 'query',
          required: false,
          schema: { type: 'string', pattern: '^[1-9][0-9]{0,15}( *, *[1-9][0-9]{0,15})*$' },
          description: 'regenerate those entries (every id must exist): needs a token',
        },
      ],
      responses: {
        200: ok(
          'The TEI document',
          { 'application/tei+xml': { schema: { type: 'string' } } },
          { ETag: header('ETag'), 'Last-Modified': header('LastModified') },
        ),
        304: {
          description: 'Not modified (If-None-Match, If-Modified-Since)',
          headers: { ETag: header('ETag'), 'Last-Modified': header('LastModified') },
        },
        404: response('NotFound'),
        422: response('Invalid'),
      },
    };
  switch (key) {
    case 'GET /api':
      return {
        summary: 'The index of the API: name, version and where to read on',
        responses: { 200: ok('The index', json(ref('Index'))) },
      };
    case 'GET /api/openapi.json':
      return {
        summary: 'This description (OpenAPI 3.1)',
        responses: {
          200: ok('The description', json({ type: 'object' }), { ETag: header('ETag') }),
          304: { description: 'Not modified (If-None-Match)' },
        },
      };
    case 'GET /api/token':
      return {
        summary: 'The presented token describes itself (never its value)',
        responses: { 200: ok('The token', json(dataOf(ref('Token')))), 404: response('NotFound') },
      };
    case 'GET /api/tei/refresh':
      return {
        summary: 'Rebuild every TEI export; answers the number of entries of each',
        responses: {
          200: ok(
            'Entries by export',
            json(dataOf({ type: 'object', additionalProperties: { type: 'integer', minimum: 0 } })),
          ),
        },
      };
    case 'POST /api/sips/import':
      return {
        summary: 'Submit a SIP (a ZIP file) for ingest',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                properties: {
                  file: { type: 'string', contentMediaType: 'application/zip' },
                  identifier: { type: 'string', maxLength: 255 },
                  title: { type: 'string', maxLength: 1024 },
                  keywords: { type: 'string' },
                },
                required: ['file'],
              },
            },
          },
        },
        responses: {
          202: ok('The submission, received', json(dataOf(ref('Submission'))), {
            Location: header('SubmissionLocation'),
          }),
          409: response('Conflict'),
          422: response('Invalid'),
          507: response('NoSpace'),
        },
      };
    case 'POST /api/ingest/confirm/:id':
    case 'POST /api/ingest/failed/:id': {
      const failed = key.includes('failed');
      return {
        summary: failed
          ? 'Ingest failed: mark a received submission failed'
          : 'Ingest done: confirm a received submission',
        parameters: [ID_PARAMETER],
        requestBody: body(
          {
            type: 'object',
            properties: failed ? { reason: { type: 'string', maxLength: 2000 } } : {},
            additionalProperties: false,
          },
          false,
        ),
        responses: {
          200: ok('The submission', json(dataOf(ref('Submission')))),
          404: response('NotFound'),
          409: response('Conflict'),
          422: response('Invalid'),
        },
      };
    }
    case 'POST /api/tokens/revoke':
      return {
        summary: 'Report leaked token values: every live token among them is revoked at once',
        description:
          'No token needed (an Authorization header is judged as on every route, then ignored). The answer ' +
          'is the same whatever was found, and comes no sooner than half a second after the report: it says ' +
          `nothing about the values. At most ${MAX_REPORTED_VALUES} values and ${REPORT_BYTES} bytes; ` +
          'reports are limited per client address (`limits.reportRate`, 429).',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  credentials: {
                    type: 'array',
                    items: { type: 'string', description: 'a value found, e.g. `arc_…` (docs/security.md)' },
                    minItems: 1,
                    maxItems: MAX_REPORTED_VALUES,
                  },
                },
                required: ['credentials'],
                additionalProperties: false,
              },
            },
          },
        },
        responses: {
          202: ok(
            'Received: the number of values, whatever they were',
            json(
              dataOf({
                type: 'object',
                properties: { received: { type: 'integer', minimum: 1, maximum: MAX_REPORTED_VALUES } },
                required: ['received'],
                additionalProperties: false,
              }),
            ),
          ),
          413: response('TooLarge'),
          422: response('Invalid'),
          429: response('TooManyRequests'),
        },
      };
    case 'POST /api/ai-cataloging/usage':
      return {
        summary: 'Record one call a cataloguing tool made to a model',
        requestBody: body(ref('UsageInput')),
        responses: {
          201: ok(
            'Recorded (a usage record has no URL)',
            json({
              type: 'object',
              properties: { id: { type: 'integer', minimum: 1 } },
              required: ['id'],
              additionalProperties: false,
            }),
          ),
          422: response('Invalid'),
        },
      };
  }
  return undefined;
}

function describe(route: RouteSpec): Described {
  if (route.crossOrigin) return reconciliation(route);
  for (const r of RESOURCES) {
    const d = catalogue(route, r);
    if (d) return d;
  }
  const d = special(route);
  if (!d) throw new Error(`the description does not know ${route.method} ${route.path}`);
  return d;
}

/**
 * Who may call: the rule, in words, and the security requirement that says it; `x-scope` names the
 * scope a token needs (null: none). Not the requirement's list: OpenAPI 3.1 allows role names
 * there for schemes other than OAuth's, but Spectral's oas3-operation-security-defined wants
 * them declared as OAuth scopes, which a bearer scheme has not.
 */
function access(route: RouteSpec): Schema {
  const { rule, ruleWithIds, scope, scopeWithIds } = route;
  const opens = rule === 'token_or_public_api' || rule === 'authority';
  return {
    security: rule === 'open' ? [] : opens ? [{ bearer: [] }, {}] : [{ bearer: [] }],
    'x-archivectl-access': { rule, text: RULE_TEXT[rule], ...(ruleWithIds ? { ruleWithIds } : {}) },
    'x-scope': scope,
    ...(scopeWithIds ? { 'x-scope-with-ids': scopeWithIds } : {}),
  };
}

/**
 * Answers every route may give: the pipeline's (unreadable bodies; a token in the URL, one not
 * valid, or a blocked account's, even where none is needed; overload).
 */
const PIPELINE_ANSWERS: Answers = {
  400: response('BadRequest'),
  401: response('Unauthorized'),
  403: response('Forbidden'),
  413: response('TooLarge'),
  415: response('UnsupportedType'),
  429: response('TooManyRequests'),
  503: response('Unavailable'),
};

/** The fields every answer to a rate-limited client carries (http/rate-limits.ts). */
export const RATE_LIMIT_HEADERS: Schema = {
  'RateLimit-Policy': header('RateLimitPolicy'),
  RateLimit: header('RateLimit'),
};

/**
 * The headers of a route's own answers (the shared error answers carry theirs): the RateLimit
 * fields on every one, and on a success with a token the token's end.
 */
function withAnswerHeaders(responses: Answers, rule: Rule): Answers {
  return Object.fromEntries(
    Object.entries(responses).map(([status, answer]) => {
      if ('$ref' in answer) return [status, answer];
      const headers = {
        ...((answer.headers as Schema | undefined) ?? {}),
        ...(rule !== 'open' && /^2/.test(status) ? { 'Token-Expiration': header('TokenExpiration') } : {}),
        ...RATE_LIMIT_HEADERS,
      };
      return [status, { ...answer, headers }];
    }),
  );
}

/** The scope a token needs, in words (a token without scopes has them all). */
function scopeText(route: RouteSpec): string {
  if (route.scope === null) return ' A token needs no scope.';
  const withIds = route.scopeWithIds ? ` (with \`ids\`: \`${route.scopeWithIds}\`)` : '';
  return ` Scope: \`${route.scope}\`${withIds}; a token narrowed to other scopes is answered 403 \`insufficient_scope\`.`;
}

export function paths(routes: readonly RouteSpec[]): Record<string, Record<string, Schema | Schema[]>> {
  const out: Record<string, Record<string, Schema | Schema[]>> = {};
  for (const route of routes) {
    const d = describe(route);
    const path = displayPath(route.path);
    const operation: Schema = {
      operationId: operationId(route),
      summary: d.summary,
      description:
        `Access: ${RULE_TEXT[route.rule]}.${route.ruleWithIds ? ` With \`ids\`: ${RULE_TEXT[route.ruleWithIds]}.` : ''}` +
        scopeText(route) +
        (d.description ? ` ${d.description}` : ''),
      tags: [tagOf(route.path)],
      ...access(route),
      ...(d.parameters && d.parameters.length > 0 ? { parameters: d.parameters } : {}),
      ...(d.requestBody ? { requestBody: d.requestBody } : {}),
      responses: withAnswerHeaders({ ...d.responses, ...PIPELINE_ANSWERS, ...d.responses }, route.rule),
    };
    const item = (out[path] ??= {});
    // The `{id}` of a path, once for all its operations: a row id, or a reconciliation entity's id.
    if (route.path.includes(':id'))
      item.parameters = [
        route.crossOrigin ? { ...ID_PARAMETER, schema: { type: 'string', minLength: 1 } } : ID_PARAMETER,
      ];
    item[route.method.toLowerCase()] = operation;
    if (route.crossOrigin && !out[path].options)
      out[path].options = {
        operationId: `options${operationId(route).replace(/^(get|post)/, '')}`,
        summary: 'CORS preflight (OpenRefine calls the service from its web page)',
        description: 'Answered before authentication: a browser sends no token with a preflight.',
        tags: [tagOf(route.path)],
        security: [],
        responses: {
          204: { description: 'The methods and headers a browser may use' },
          401: response('Unauthorized'),
          405: response('MethodNotAllowed'),
        },
      };
  }
  return out;
}

/** The tag of a path: its first segment after /api (`actors`, `tei`, …), `api` for the index. */
export function tagOf(path: string): string {
  const first = path.split('/')[2];
  return first === undefined || first === 'openapi.json' ? 'api' : first;
}
