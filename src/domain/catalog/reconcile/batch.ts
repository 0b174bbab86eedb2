// A batch of reconciliation queries (0.2 §"Structure of a Reconciliation Query"): one JSON object
// of at most batchSize queries, each read on its own; one that cannot be used is reported beside
// the others instead of failing them (OpenRefine would mark the whole batch's rows as errors).
import { isPlainObject, isStringArray } from '../json-values.js';
import {
  BatchTooLarge,
  cleanText,
  jsonObjectParam,
  MAX_ASKED_LIMIT,
  MAX_LIMIT,
  MAX_QUERIES,
  shortKey,
} from './input.js';

export const DEFAULT_LIMIT = 5;
export const MAX_QUERY_LENGTH = 1000;
const MAX_TYPES = 20;
/** The longest type id or name, property id or qualifier a query may give. */
export const MAX_ID_TEXT = 255;
/** A type id or name, property id or qualifier short enough to be one. */
export const withinIdText = (s: string): boolean => s.length <= MAX_ID_TEXT;
export const MAX_PROPERTIES = 20;
const MAX_VALUES = 20;
/** batch → query → properties → property → values → value: 6; a little room, no more. */
const MAX_DEPTH = 8;
/** 0.2's `type_strict` words: accepted and ignored (a candidate of any of the types is answered). */
export const TYPE_STRICT = ['any', 'all', 'should'] as const;

export interface PropertyFilter {
  pid: string;
  values: string[];
}

export interface ReconcileQuery {
  /** The client's key (`q0`, …); in 1.0-draft, the position. */
  key: string;
  /** The query string, normalised; '' when the query has none (0.2: properties only). */
  query: string;
  limit: number;
  /** Type ids to restrict to, or null for any. */
  types: string[] | null;
  properties: PropertyFilter[];
  /** Entity ids the candidates must have (1.0-draft's `id` conditions); absent: any. */
  ids?: string[];
}

/** One query of a batch: usable, or the reason it is not (answered with no candidates). */
export type BatchEntry = { key: string; query: ReconcileQuery } | { key: string; error: string };

/**
 * A property's value(s) as strings, a reconciled value (`{"id", "name"}`) by its id; a boolean
 * matches nothing (no property is boolean); null for any other value or more than MAX_VALUES.
 */
function valueStrings(v: unknown): string[] | null {
  const list = Array.isArray(v) ? v : [v];
  if (list.length > MAX_VALUES) return null;
  const out: string[] = [];
  for (const x of list) {
    if (typeof x === 'string') out.push(x);
    else if (typeof x === 'number' && Number.isFinite(x)) out.push(String(x));
    else if (isPlainObject(x) && typeof x.id === 'string') out.push(x.id);
    else if (typeof x !== 'boolean') return null;
  }
  return out;
}

/** `properties` as 0.2 sends it (`[{pid, v}]`), or as the 0.1 text describes it (`{pid: v}`). */
function parseProperties(raw: unknown): PropertyFilter[] | string {
  if (!Array.isArray(raw) && !isPlainObject(raw)) return '"properties" must be an array of {"pid", "v"}';
  const entries: unknown[] = Array.isArray(raw) ? raw : Object.entries(raw).map(([pid, v]) => ({ pid, v }));
  if (entries.length > MAX_PROPERTIES) return `"properties" may hold at most ${MAX_PROPERTIES} entries`;
  const out: PropertyFilter[] = [];
  for (const entry of entries) {
    if (!isPlainObject(entry) || typeof entry.pid !== 'string' || entry.pid === '' || !('v' in entry))
      return '"properties" must be an array of {"pid", "v"}';
    if (!withinIdText(entry.pid)) return `a property id must be at most ${MAX_ID_TEXT} characters`;
    const values = propertyValues(entry.pid, entry.v);
    if (typeof values === 'string') return values;
    out.push({ pid: entry.pid, values });
  }
  return out;
}

/** A property's values as strings (valueStrings), each cleaned, or why they cannot be used. */
export function propertyValues(pid: string, v: unknown): string[] | string {
  const values = valueStrings(v);
  if (values === null)
    return `the values of property "${shortKey(pid)}" must be strings, numbers or {"id"} (at most ${MAX_VALUES})`;
  const cleaned: string[] = [];
  for (const value of values) {
    const c = cleanText(value, MAX_QUERY_LENGTH);
    if (!c.ok) return `a value of property "${shortKey(pid)}" ${c.message}`;
    cleaned.push(c.text);
  }
  return cleaned;
}

function parseQuery(key: string, q: unknown): ReconcileQuery | string {
  if (!isPlainObject(q)) return 'must be an object with "query" or "properties"';
  let query = '';
  if (q.query !== undefined && q.query !== null) {
    if (typeof q.query !== 'string') return '"query" must be a string';
    const c = cleanText(q.query, MAX_QUERY_LENGTH);
    if (!c.ok) return `"query" ${c.message}`;
    query = c.text;
  }
  let limit = DEFAULT_LIMIT;
  if (q.limit !== undefined && q.limit !== null) {
    const n = typeof q.limit === 'string' && /^[0-9]{1,7}$/.test(q.limit) ? Number(q.limit) : q.limit;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_ASKED_LIMIT)
      return `"limit" must be an integer from 1 to ${MAX_ASKED_LIMIT}`;
    limit = Math.min(n, MAX_LIMIT);
  }
  if (
    q.type_strict !== undefined &&
    q.type_strict !== null &&
    !(TYPE_STRICT as readonly unknown[]).includes(q.type_strict)
  )
    return `"type_strict" must be ${TYPE_STRICT.map((w) => `"${w}"`).join(', ')}`;
  let types: string[] | null = null;
  if (q.type !== undefined && q.type !== null && q.type !== '') {
    if (typeof q.type === 'string' && withinIdText(q.type)) types = [q.type];
    else if (isStringArray(q.type) && q.type.length <= MAX_TYPES && q.type.every(withinIdText))
      types = q.type.length > 0 ? q.type : null;
    else return `"type" must be a type id or an array of type ids (each at most ${MAX_ID_TEXT} characters)`;
  }
  const properties = q.properties === undefined || q.properties === null ? [] : parseProperties(q.properties);
  if (typeof properties === 'string') return properties;
  // 0.2: at least one of `query` or `properties`.
  if ((q.query === undefined || q.query === null) && properties.length === 0) return 'needs "query" or "properties"';
  return { key, query, limit, types, properties };
}

/** `queries` as JSON text (a query-string or form value) or parsed (a JSON body). */
export function parseBatch(raw: unknown): BatchEntry[] {
  const batch = jsonObjectParam(raw, 'queries', MAX_DEPTH);
  const keys = Object.keys(batch);
  if (keys.length > MAX_QUERIES) throw new BatchTooLarge('queries', keys.length, MAX_QUERIES);
  return keys.map((key) => {
    const parsed = parseQuery(key, batch[key]);
    return typeof parsed === 'string' ? { key, error: parsed } : { key, query: parsed };
  });
}
