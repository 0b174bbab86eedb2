// A route, declared once beside its handler (src/http/routes/): the router, the access steps, `archivectl routes`
// and the served description are derived from these declarations.
import type { RouteSpec } from '../domain/access.js';
import type { v } from '../validation.js';
import type { Handler } from './types.js';

/** A JSON Schema (draft 2020-12, OpenAPI 3.1's dialect). */
export type Schema = Record<string, unknown>;

/** A schema as a route declares it: the valibot schema its handler parses with, or JSON Schema where none exists. */
export type SchemaSource = v.GenericSchema | Schema;

/** The shared error answers (src/http/openapi/document.ts) a route names beside its own. */
export type ErrorAnswer = 'NotFound' | 'Conflict' | 'TooLarge' | 'Invalid' | 'TooManyRequests' | 'NoSpace';

/** The headers a route's answers may carry besides the ones every answer has (RateLimit, Token-Expiration). */
export type AnswerHeader = 'Location' | 'SubmissionLocation' | 'ETag' | 'LastModified' | 'Link';

export interface Answer {
  description: string;
  /** By media type; none for an answer without a body (304). */
  content?: Record<string, SchemaSource>;
  headers?: readonly AnswerHeader[];
}

export interface Body {
  /** Whether a request without a body is refused (422). */
  required: boolean;
  /** By media type: `application/json`, `application/x-www-form-urlencoded`, `multipart/form-data`. */
  content: Record<string, SchemaSource>;
}

/** A query parameter written out, where the handler reads it by hand (JSON text, ids). */
export interface QueryParameter {
  name: string;
  required?: boolean;
  schema: Schema;
  description?: string;
}

export interface Route extends RouteSpec {
  summary: string;
  /** Said after the access rule. */
  description?: string;
  /**
   * The query: valibot object schemas the handler parses it with (an entry a parameter), or
   * parameters written out; `[]` for a route that reads none (unknown parameters are ignored).
   */
  query: readonly (v.GenericSchema | QueryParameter)[];
  /** What each query parameter means, by name. */
  words?: Record<string, string>;
  /** The `{id}` of the path: a row id unless said (a reconciliation entity's id is any text). */
  id?: 'row' | 'text';
  body?: Body;
  /** By status; the pipeline's answers (400, 401, 403, 413, 415, 429, 503) are added to every route. */
  answers: Record<number, Answer | ErrorAnswer>;
  handler: Handler;
}

/** An object of exactly these properties, each required but those named `optional`. */
export const closed = (properties: Record<string, Schema>, ...optional: string[]): Schema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
  additionalProperties: false,
});

/** `{data: …}`. */
export const dataOf = (schema: Schema): Schema => closed({ data: schema });

/** A reference to a shared schema of the description (`#/components/schemas/<name>`). */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

export const JSON_TYPE = 'application/json';
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** `Actor`, `Place`, … : a resource's schema names in the description (`Actor`, `ActorCreate`, `ActorList`). */
export const recordName = (what: string): string => `${what[0]?.toUpperCase()}${what.slice(1)}`;
