// AI-cataloging usage records (SPEC §4.4): one row per call a cataloguing tool made to a model,
// for cost reporting. Every bad field is named in `fields`, so a tool author fixes all at once.
import { hasControlChars } from './fields.js';
import { invalid } from '../../errors.js';
import type { Ctx } from '../context.js';

export interface UsageRecord {
  provider: string;
  model: string;
  tokens_in: number;
  tokens_out: number;
  cost_chf: number;
  success: boolean;
  latency_ms: number | null;
  profile_slug: string | null;
  entry_uuid: string | null;
  source: string;
}

/**
 * Where the values came from. JSON carries types, so numbers must be JSON numbers and `success`
 * a JSON boolean. A urlencoded (or multipart) form carries only strings, so there integers are
 * decimal digits, `cost_chf` a plain decimal (`0.0125`), and `success` one of true/false/1/0.
 */
export type ValueSource = 'json' | 'form';

export const DEFAULT_SOURCE = 'agate';
const MAX_INT32 = 2_147_483_647; // latency_ms is a 32-bit integer column

const KNOWN = new Set([
  'provider',
  'model',
  'tokens_in',
  'tokens_out',
  'cost_chf',
  'success',
  'latency_ms',
  'profile_slug',
  'entry_uuid',
  'source',
]);

/** Length in characters (code points), as PostgreSQL's varchar(n) counts. */
export function charLength(s: string): number {
  if (s.length > 4 * 1024 * 1024) return s.length; // no need to count a huge value exactly
  let n = 0;
  for (const _ of s) n++;
  return n;
}

type Problem = string; // the message for `fields`

class Fields {
  private readonly problems = new Map<string, Problem>();
  add(name: string, problem: Problem): void {
    if (!this.problems.has(name)) this.problems.set(name, problem);
  }
  get size(): number {
    return this.problems.size;
  }
  // Object.fromEntries defines own properties, so a field named __proto__ cannot touch a prototype.
  toObject(): Record<string, string> {
    return Object.fromEntries(this.problems);
  }
}

/** A single value: forms may repeat a key (an array); that is a mistake, not a list. */
function single(fields: Fields, name: string, value: unknown): unknown {
  if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
    fields.add(name, 'must be a single value');
    return undefined;
  }
  return value;
}

function text(fields: Fields, name: string, value: unknown, min: number, max: number): string | undefined {
  if (typeof value !== 'string') {
    fields.add(name, 'must be a string');
    return undefined;
  }
  const length = charLength(value);
  if (length < min || (min > 0 && value.trim() === '')) fields.add(name, 'is required and must not be blank');
  else if (length > max) fields.add(name, `must be at most ${max} characters`);
  else if (hasControlChars(value)) fields.add(name, 'must not contain control characters');
  else return value;
  return undefined;
}

function integer(fields: Fields, name: string, value: unknown, from: ValueSource, max: number): number | undefined {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (from === 'form' && typeof value === 'string' && /^\d{1,16}$/.test(value)) n = Number(value);
  if (n === undefined || !Number.isSafeInteger(n) || n < 0) {
    fields.add(name, 'must be an integer, 0 or more');
    return undefined;
  }
  if (n > max) {
    fields.add(name, `must be at most ${max}`);
    return undefined;
  }
  return n;
}

function amount(fields: Fields, name: string, value: unknown, from: ValueSource): number | undefined {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (from === 'form' && typeof value === 'string' && /^\d{1,16}(?:\.\d{1,16})?$/.test(value)) n = Number(value);
  if (n === undefined || !Number.isFinite(n) || n < 0) {
    fields.add(name, 'must be a number, 0 or more');
    return undefined;
  }
  return n === 0 ? 0 : n; // -0 would be stored and shown as "-0"
}

const FORM_BOOLEANS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false };

function flag(fields: Fields, name: string, value: unknown, from: ValueSource): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (from === 'form' && typeof value === 'string' && Object.hasOwn(FORM_BOOLEANS, value)) return FORM_BOOLEANS[value];
  fields.add(name, from === 'form' ? 'must be true, false, 1 or 0' : 'must be true or false');
  return undefined;
}

/** Optional values: absent, null or "" all mean "not given". */
const absent = (v: unknown): boolean => v === undefined || v === null || v === '';

/** Validates a usage record; throws `invalid` (422) naming every bad field. */
export function parseUsage(input: Record<string, unknown>, from: ValueSource): UsageRecord {
  const fields = new Fields();
  // Unknown fields are refused so that a misspelt optional field is not silently dropped.
  const unknown = Object.keys(input).filter((key) => !KNOWN.has(key));
  for (const key of unknown.slice(0, 50)) fields.add(key, 'unknown field');

  const get = (name: string): unknown => (Object.hasOwn(input, name) ? single(fields, name, input[name]) : undefined);
  const required = (name: string): unknown => {
    if (!Object.hasOwn(input, name)) {
      fields.add(name, 'is required');
      return undefined;
    }
    const v = get(name); // undefined: already reported as not a single value
    if (v === null || (from === 'form' && v === '')) {
      fields.add(name, 'is required');
      return undefined;
    }
    return v;
  };

  const provider = required('provider');
  const model = required('model');
  const tokensIn = required('tokens_in');
  const tokensOut = required('tokens_out');
  const cost = required('cost_chf');
  const success = required('success');
  const latency = get('latency_ms');
  const profile = get('profile_slug');
  const entry = get('entry_uuid');
  const source = get('source');

  const record = {
    provider: provider === undefined ? undefined : text(fields, 'provider', provider, 1, 64),
    model: model === undefined ? undefined : text(fields, 'model', model, 1, 128),
    tokens_in: tokensIn === undefined ? undefined : integer(fields, 'tokens_in', tokensIn, from, Number.MAX_SAFE_INTEGER),
    tokens_out: tokensOut === undefined ? undefined : integer(fields, 'tokens_out', tokensOut, from, Number.MAX_SAFE_INTEGER),
    cost_chf: cost === undefined ? undefined : amount(fields, 'cost_chf', cost, from),
    success: success === undefined ? undefined : flag(fields, 'success', success, from),
    latency_ms: absent(latency) ? null : integer(fields, 'latency_ms', latency, from, MAX_INT32),
    profile_slug: absent(profile) ? null : text(fields, 'profile_slug', profile, 0, 128),
    entry_uuid: absent(entry) ? null : text(fields, 'entry_uuid', entry, 0, 36),
    source: absent(source) ? DEFAULT_SOURCE : text(fields, 'source', source, 1, 32),
  };

  if (fields.size > 0) {
    const problems = fields.toObject();
    const names = Object.keys(problems);
    throw invalid(`invalid usage record: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''}`, problems);
  }
  // Every value is defined once no field is reported; the checks above return undefined only with a problem.
  return record as UsageRecord;
}

/** Stores a usage record; answers its id. */
export async function recordUsage(ctx: Ctx, input: Record<string, unknown>, from: ValueSource): Promise<number> {
  const r = parseUsage(input, from);
  const [row] = (await ctx.db('ai_cataloging_usage')
    .insert({
      provider: r.provider,
      model: r.model,
      tokens_in: r.tokens_in,
      tokens_out: r.tokens_out,
      cost_chf: r.cost_chf,
      success: r.success,
      latency_ms: r.latency_ms,
      profile_slug: r.profile_slug,
      entry_uuid: r.entry_uuid,
      source: r.source,
      created_at: ctx.clock.now().toISOString(),
    })
    .returning('id')) as ({ id: number } | number)[];
  return typeof row === 'object' ? Number(row.id) : Number(row);
}
