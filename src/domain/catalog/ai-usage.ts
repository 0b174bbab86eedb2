// AI-cataloging usage records (docs/http-api.md): one row per call a cataloguing tool made to a model,
// for cost reporting. Every bad field is named in `fields`, so a tool author fixes all at once.
import { hasControlChars } from './fields.js';
import { parseKnownFields, v } from '../../validation.js';
import type { Ctx } from '../context.js';
import { insertedId } from '../../db/row-id.js';

/**
 * JSON carries types: numbers and `success` must be JSON's own. A (urlencoded or multipart) form
 * carries only strings: integers are digits, `cost_chf` a plain decimal, `success` true/false/1/0.
 */
export type ValueSource = 'json' | 'form';

export const DEFAULT_SOURCE = 'agate';
const MAX_INT32 = 2_147_483_647; // latency_ms is a 32-bit integer column

/** Length in characters (code points), as PostgreSQL's varchar(n) counts. */
export function charLength(s: string): number {
  if (s.length > 4 * 1024 * 1024) return s.length; // no need to count a huge value exactly
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A single value: forms may repeat a key (an array); that is a mistake, not a list. */
const single = v.check((value: unknown) => value === null || typeof value !== 'object', 'must be a single value');

/** A required field: absent or null (in a form also "") is "is required". */
function required<S extends v.GenericSchema>(from: ValueSource, schema: S) {
  const given = (value: unknown) => value !== null && !(from === 'form' && value === '');
  return v.pipe(v.unknown(), single, v.check(given, 'is required'), schema);
}

/** An optional field: absent, null or "" all mean "not given", which is `fallback`. */
function optional<S extends v.GenericSchema, F extends v.InferOutput<S> | null>(schema: S, fallback: F) {
  return v.optional(
    v.pipe(
      v.unknown(),
      single,
      v.transform((value) => (value === null || value === '' ? undefined : value)),
      v.optional(schema),
      v.transform((value) => value ?? fallback),
    ),
    fallback,
  );
}

function text(min: number, max: number) {
  return v.pipe(
    v.string('must be a string'),
    v.check((s) => charLength(s) >= min && !(min > 0 && s.trim() === ''), 'is required and must not be blank'),
    v.check((s) => charLength(s) <= max, `must be at most ${max} characters`),
    v.check((s) => !hasControlChars(s), 'must not contain control characters'),
    // Described: a required text has a character that is not white space.
    v.metadata({ minLength: min, maxLength: max, ...(min > 0 ? { pattern: '\\S' } : {}) }),
  );
}

function integer(from: ValueSource, max: number) {
  const message = 'must be an integer, 0 or more';
  return v.pipe(
    v.unknown(),
    v.transform((value) =>
      from === 'form' && typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value,
    ),
    v.number(message),
    v.safeInteger(message),
    v.minValue(0, message),
    v.maxValue(max, `must be at most ${max}`),
  );
}

function amount(from: ValueSource) {
  const message = 'must be a number, 0 or more';
  return v.pipe(
    v.unknown(),
    v.transform((value) =>
      from === 'form' && typeof value === 'string' && /^\d{1,16}(?:\.\d{1,16})?$/.test(value) ? Number(value) : value,
    ),
    v.number(message),
    v.finite(message),
    v.minValue(0, message),
    v.transform((n) => (n === 0 ? 0 : n)), // -0 would be stored and shown as "-0"
  );
}

const FORM_BOOLEANS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false };

function flag(from: ValueSource) {
  const message = from === 'form' ? 'must be true, false, 1 or 0' : 'must be true or false';
  return v.pipe(
    v.unknown(),
    v.transform((value) =>
      from === 'form' && typeof value === 'string' && Object.hasOwn(FORM_BOOLEANS, value)
        ? FORM_BOOLEANS[value]
        : value,
    ),
    v.boolean(message),
  );
}

function usageSchema(from: ValueSource) {
  return v.object(
    {
      provider: required(from, text(1, 64)),
      model: required(from, text(1, 128)),
      tokens_in: required(from, integer(from, Number.MAX_SAFE_INTEGER)),
      tokens_out: required(from, integer(from, Number.MAX_SAFE_INTEGER)),
      cost_chf: required(from, amount(from)),
      success: required(from, flag(from)),
      latency_ms: optional(integer(from, MAX_INT32), null),
      profile_slug: optional(text(0, 128), null),
      entry_uuid: optional(text(0, 36), null),
      source: optional(text(1, 32), DEFAULT_SOURCE),
    },
    // A missing key is reported at its path; the body itself is an object by the time it gets here.
    (issue) => (issue.path ? 'is required' : 'must be an object'),
  );
}

export const SCHEMAS = { json: usageSchema('json'), form: usageSchema('form') };

export type UsageRecord = v.InferOutput<(typeof SCHEMAS)['json']>;

export function parseUsage(input: Record<string, unknown>, from: ValueSource): UsageRecord {
  return parseKnownFields(SCHEMAS[from], input, 'usage record');
}

export async function recordUsage(ctx: Ctx, input: Record<string, unknown>, from: ValueSource): Promise<number> {
  const record = parseUsage(input, from);
  const rows: unknown = await ctx
    .db('ai_cataloging_usage')
    .insert({ ...record, created_at: ctx.clock.now().toISOString() })
    .returning('id');
  return insertedId(rows);
}
