// The valibot schemas the daemon validates with, as JSON Schema 2020-12 (@valibot/to-json-schema).
// Checks it cannot translate carry their JSON Schema as valibot metadata (domain/catalog/fields.ts);
// a query parameter's schema sits in its wrapper's `parameter` metadata (catalog/list/params.ts).
import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import type { v } from '../../validation.js';

export type Schema = Record<string, unknown>;

/** Keywords that say nothing of a number (a digit string read as an integer). */
const STRING_ONLY = ['pattern', 'minLength', 'maxLength', 'format'];

function tidy(schema: Schema): Schema {
  const out: Schema = { ...schema };
  delete out.$schema;
  delete out.parameter;
  if (out.type === 'integer' || out.type === 'number') for (const key of STRING_ONLY) delete out[key];
  // A default that is null or a function says nothing a client can use.
  if (out.default === null || typeof out.default === 'function') delete out.default;
  // A default given as its parsed value (sortAsc: true) is not one of the accepted words.
  if (Array.isArray(out.enum) && 'default' in out && !out.enum.includes(out.default)) delete out.default;
  if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  // A record's keys: JSON's keys are strings anyway.
  if (JSON.stringify(out.propertyNames) === '{"type":"string"}') delete out.propertyNames;
  return out;
}

const CONFIG: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'ignore',
  errorMode: 'ignore',
  overrideAction: ({ valibotAction }) => {
    if (valibotAction.type !== 'metadata') return null;
    const meta = (valibotAction as unknown as { metadata: Schema }).metadata;
    const inner = meta.parameter as v.GenericSchema | undefined;
    if (inner === undefined) return null;
    const own = jsonSchemaOf(inner);
    return { ...own, ...(meta.default !== undefined ? { default: meta.default } : {}) } as JsonSchema;
  },
};

/** A valibot schema as the JSON Schema of the values it accepts. */
export function jsonSchemaOf(schema: v.GenericSchema): Schema {
  return walk(toJsonSchema(schema, CONFIG) as Schema);
}

/**
 * Named valibot schemas as component schemas: where one contains another of them, it refers to
 * it (`#/components/schemas/<name>`) instead of repeating it.
 */
export function componentSchemas(named: Record<string, v.GenericSchema>): Record<string, Schema> {
  const converted = toJsonSchemaDefs(named, {
    ...CONFIG,
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  }) as Record<string, Schema>;
  return Object.fromEntries(Object.entries(converted).map(([name, s]) => [name, walk(s)]));
}

/** Tidies every nested schema as well (top down: tidy drops the keys that hold no JSON). */
const walk = (schema: Schema): Schema =>
  JSON.parse(
    JSON.stringify(schema, (_key, value: unknown) =>
      value && typeof value === 'object' && !Array.isArray(value) ? tidy(value as Schema) : value,
    ),
  ) as Schema;

/** `schema`, or null. */
export function orNull(schema: Schema): Schema {
  const out = { ...schema };
  if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  return Array.isArray(out.enum) ? out : { anyOf: [schema, { type: 'null' }] };
}

/**
 * The longest text `pattern` matches, or null when it has no bound (`*`, `+`, `{n,}`, or a top
 * alternative not anchored at both ends): the maxLength a bounded pattern implies.
 */
export function longestMatch(pattern: string): number | null {
  let at = 0;
  const alternatives = (depth: number): number | null => {
    let most = 0;
    do {
      const start = at;
      const n = sequence(depth);
      if (n === null || (depth === 0 && (pattern[start] !== '^' || pattern[at - 1] !== '$'))) return null;
      most = Math.max(most, n);
    } while (pattern[at++] === '|');
    return most;
  };
  const sequence = (depth: number): number | null => {
    let total = 0;
    while (at < pattern.length && pattern[at] !== '|' && pattern[at] !== ')') {
      const c = pattern[at++];
      let n: number | null = c === '^' || c === '$' ? 0 : 1;
      if (c === '(') {
        if (pattern[at] === '?') at += 2;
        n = alternatives(depth + 1);
      } else if (c === '[') {
        while (at < pattern.length && pattern[at] !== ']') at += pattern[at] === '\\' ? 2 : 1;
        at++;
      } else if (c === '\\') at += pattern[at] === 'u' ? 5 : 1;
      const q = /^(?:([?*+])|\{(\d+)(,(\d*))?\})/.exec(pattern.slice(at));
      if (q) {
        at += q[0].length;
        const times = q[1] === '?' ? 1 : q[1] ? null : q[3] === undefined ? Number(q[2]) : q[4] ? Number(q[4]) : null;
        n = times === null || n === null ? null : n * times;
      }
      if (n === null) return null;
      total += n;
    }
    return total;
  };
  return alternatives(0);
}

/**
 * What a schema's bounds imply, in the keywords tools look for (OWASP's API4 rules): a bounded
 * pattern's maxLength, an integer enum's minimum and maximum, each integer's format.
 */
export function withBounds<T>(document: T): T {
  return JSON.parse(JSON.stringify(document), (_key, value: unknown) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
    const s = value as Schema;
    const types = ([] as unknown[]).concat(s.type);
    if (types.includes('string') && typeof s.pattern === 'string' && s.maxLength === undefined) {
      const most = longestMatch(s.pattern);
      if (most !== null) s.maxLength = most;
    }
    if (types.includes('integer')) {
      const values = Array.isArray(s.enum) ? s.enum.filter((x): x is number => typeof x === 'number') : [];
      if (values.length > 0) {
        s.minimum ??= Math.min(...values);
        s.maximum ??= Math.max(...values);
      }
      const int32 = Number(s.minimum) >= -(2 ** 31) && Number(s.maximum) < 2 ** 31;
      s.format ??= int32 ? 'int32' : 'int64';
    }
    return s;
  }) as T;
}
