// The operations of the description, derived from the route declarations (../route.ts): one for
// each route, a HEAD beside each GET, an OPTIONS (the CORS preflight) on each cross-origin path.
// Nothing here knows a route: what a route reads and answers is declared beside its handler.
import { displayPath, RULE_TEXT, type RouteSpec } from '../../domain/access.js';
import {
  JSON_TYPE,
  ref,
  type Answer,
  type AnswerHeader,
  type QueryParameter,
  type Route,
  type Schema,
  type SchemaSource,
} from '../route.js';
import type { v } from '../../validation.js';
import { jsonSchemaOf } from './json-schema.js';

export const response = (name: string): Schema => ({ $ref: `#/components/responses/${name}` });
export const header = (name: string): Schema => ({ $ref: `#/components/headers/${name}` });

const isValibot = (s: SchemaSource): s is v.GenericSchema => '~run' in s;
const schemaOf = (s: SchemaSource): Schema => (isValibot(s) ? jsonSchemaOf(s) : s);

/** A body's or an answer's types and schemas; the one multipart body's file part is a ZIP. */
const contentOf = (content: Record<string, SchemaSource>): Schema =>
  Object.fromEntries(
    Object.entries(content).map(([type, s]) => [
      type,
      {
        schema: schemaOf(s),
        ...(type === 'multipart/form-data' ? { encoding: { file: { contentType: 'application/zip' } } } : {}),
      },
    ]),
  );

/** getActorsById, postActorsReconcile10DraftMatch: stable, from the method and the path. */
export function operationId(route: Pick<RouteSpec, 'path'>, method: string): string {
  const words = route.path
    .replace(/^\/api\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  const name = words.map((w) => `${w[0]?.toUpperCase()}${w.slice(1)}`).join('');
  return `${method}${name || 'Index'}`;
}

/** The query parameters: each entry of a valibot object schema, or one written out. */
function parameters(route: Route): Schema[] {
  const words = route.words ?? {};
  return (route.query ?? []).flatMap((source: v.GenericSchema | QueryParameter) => {
    if (!isValibot(source as SchemaSource)) {
      const p = source as QueryParameter;
      return [{ in: 'query', required: false, ...p }];
    }
    const object = jsonSchemaOf(source as v.GenericSchema);
    const required = (object.required as string[] | undefined) ?? [];
    return Object.entries((object.properties ?? {}) as Record<string, Schema>).map(([name, schema]) => ({
      name,
      in: 'query',
      required: required.includes(name),
      schema,
      ...(words[name] ? { description: words[name] } : {}),
    }));
  });
}

/** A header's field name: its component's name but for these two. */
const fieldName = (h: AnswerHeader): string =>
  h === 'SubmissionLocation' ? 'Location' : h === 'LastModified' ? 'Last-Modified' : h;

/** The fields every answer to a rate-limited client carries (http/limits/rate-limits.ts). */
export const RATE_LIMIT_HEADERS: Schema = {
  'RateLimit-Policy': header('RateLimitPolicy'),
  RateLimit: header('RateLimit'),
};

/** The CORS fields of a cross-origin route's answers (../cors.ts). */
export const CORS_HEADERS: Schema = { 'Access-Control-Allow-Origin': header('AllowOrigin') };

/**
 * The statuses every route may answer: the pipeline's (unreadable bodies; a token in the URL, one
 * not valid, or a blocked account's, even where none is needed; a rate limit; a head too large; overload).
 */
const PIPELINE = [400, 401, 403, 413, 415, 429, 431, 503];

const ERRORS: Record<string, [number, string]> = {
  BadRequest: [400, 'The body could not be read (malformed JSON, a form), or a token was sent in the URL or body'],
  Unauthorized: [401, 'No token, or one that is not valid (`WWW-Authenticate: Bearer realm="archive"`)'],
  Forbidden: [
    403,
    "The token's role may not do this, or the token lacks the scope the route needs (`WWW-Authenticate: " +
      'Bearer realm="archive", error="insufficient_scope", scope="…"`, the `error` naming the scope), or it is ' +
      'presented from an address outside its `allow_from`, or its account is blocked',
  ],
  NotFound: [404, 'No such record'],
  MethodNotAllowed: [405, 'Not a method of this path (`Allow` names those that are)'],
  Conflict: [409, 'The state changed: the request no longer applies'],
  TooLarge: [413, 'The body, or a reconciliation batch, is larger than allowed'],
  UnsupportedType: [415, 'A body of a type this route does not read'],
  Invalid: [422, 'Invalid input: `fields` names every problem, e.g. `{"name": "must be 1 to 255 characters"}`'],
  TooManyRequests: [
    429,
    'A rate limit is spent (`Retry-After`, and the `RateLimit` fields of the limit), or too many failed token verifications came from this address',
  ],
  HeadTooLarge: [
    431,
    'The request line and headers exceed `limits.headerBytes` (16 KiB by default): send a long query batch by POST',
  ],
  Unavailable: [503, 'Busy or not ready: come back later (`Retry-After`)'],
  NoSpace: [507, 'No space left to store the data'],
};

/** The error answers, by name: a route's answers and the pipeline's refer to them. */
export function errorResponses(): Record<string, Schema> {
  return Object.fromEntries(
    Object.entries(ERRORS).map(([name, [status, description]]) => [
      name,
      {
        description,
        headers: {
          ...(status === 401 || status === 403 ? { 'WWW-Authenticate': header('WWWAuthenticate') } : {}),
          ...(status === 429 ? { 'Retry-After': header('RetryAfter') } : {}),
          ...RATE_LIMIT_HEADERS,
        },
        content: { [JSON_TYPE]: { schema: ref('Error') } },
      },
    ]),
  );
}

/** A route's own answer: its headers (RateLimit on every one, Token-Expiration on a success with a token). */
function answer(route: Route, status: number, a: Answer, head: boolean): Schema {
  const headers: Schema = {
    ...Object.fromEntries((a.headers ?? []).map((h) => [fieldName(h), header(h)])),
    ...(route.rule !== 'open' && status < 300 ? { 'Token-Expiration': header('TokenExpiration') } : {}),
    ...(route.crossOrigin ? CORS_HEADERS : {}),
    ...RATE_LIMIT_HEADERS,
  };
  return { description: a.description, headers, ...(a.content && !head ? { content: contentOf(a.content) } : {}) };
}

function answers(route: Route, head: boolean): Schema {
  const out: Schema = {};
  for (const [name, [status]] of Object.entries(ERRORS)) if (PIPELINE.includes(status)) out[status] = response(name);
  for (const [status, a] of Object.entries(route.answers))
    out[status] = typeof a === 'string' ? response(a) : answer(route, Number(status), a, head);
  return out;
}

/**
 * Who may call: the rule, in words, and the security requirement that says it; `x-scope` names the
 * scope a token needs (null: none). Not the requirement's list: OpenAPI 3.1 allows role names
 * there for schemes other than OAuth's, but Spectral's oas3-operation-security-defined wants
 * them declared as OAuth scopes, which a bearer scheme has not.
 */
function access(route: Route): Schema {
  const { rule, ruleWithIds, scope, scopeWithIds } = route;
  const opens = rule === 'token_or_public_api' || rule === 'authority';
  const withIds = route.ruleWithIds ? ` With \`ids\`: ${RULE_TEXT[route.ruleWithIds]}.` : '';
  const scopeText =
    scope === null
      ? ' A token needs no scope.'
      : ` Scope: \`${scope}\`${scopeWithIds ? ` (with \`ids\`: \`${scopeWithIds}\`)` : ''}; a token narrowed to other scopes is answered 403 \`insufficient_scope\`.`;
  return {
    description: `Access: ${RULE_TEXT[rule]}.${withIds}${scopeText}${route.description ? ` ${route.description}` : ''}`,
    security: rule === 'open' ? [] : opens ? [{ bearer: [] }, {}] : [{ bearer: [] }],
    'x-archivectl-access': { rule, text: RULE_TEXT[rule], ...(ruleWithIds ? { ruleWithIds } : {}) },
    'x-scope': scope,
    ...(scopeWithIds ? { 'x-scope-with-ids': scopeWithIds } : {}),
  };
}

function operation(route: Route, method: string): Schema {
  const head = method === 'head';
  const query = parameters(route);
  const body = route.body;
  return {
    operationId: operationId(route, method),
    summary: head ? `${route.summary} (the headers only)` : route.summary,
    tags: [tagOf(route.path)],
    ...access(route),
    ...(query.length > 0 ? { parameters: query } : {}),
    ...(body ? { requestBody: { required: body.required, content: contentOf(body.content) } } : {}),
    responses: answers(route, head),
  };
}

const ID_PARAMETER: Schema = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  description: 'the row id; anything else names no row (404)',
};

/** The CORS preflight of a cross-origin path: answered before authentication, with no scope. */
function preflight(route: Route): Schema {
  return {
    operationId: operationId(route, 'options'),
    summary: 'CORS preflight (OpenRefine calls the service from its web page)',
    description: 'Answered before authentication: a browser sends no token with a preflight.',
    tags: [tagOf(route.path)],
    security: [],
    'x-scope': null,
    responses: {
      204: { description: 'The methods and headers a browser may use', headers: CORS_HEADERS },
      401: response('Unauthorized'),
      405: response('MethodNotAllowed'),
    },
  };
}

export function paths(routes: readonly Route[]): Record<string, Record<string, Schema | Schema[]>> {
  const out: Record<string, Record<string, Schema | Schema[]>> = {};
  for (const route of routes) {
    const item = (out[displayPath(route.path)] ??= {});
    // The `{id}` of a path, once for all its operations: a row id, or a reconciliation entity's id.
    if (route.path.includes(':id'))
      item.parameters = [
        route.id === 'text'
          ? { ...ID_PARAMETER, schema: { type: 'string', minLength: 1, maxLength: 255 } }
          : ID_PARAMETER,
      ];
    const method = route.method.toLowerCase();
    item[method] = operation(route, method);
    if (method === 'get') item.head = operation(route, 'head');
    if (route.crossOrigin) item.options ??= preflight(route);
  }
  return out;
}

/** The tag of a path: its first segment after /api (`actors`, `tei`, …), `api` for the index. */
export function tagOf(path: string): string {
  const first = path.split('/')[2];
  return first === undefined || first === 'openapi.json' ? 'api' : first;
}
