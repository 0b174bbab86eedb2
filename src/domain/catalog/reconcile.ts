// The W3C Reconciliation Service API, version 0.2 (as OpenRefine speaks it), for actors, places
// and keywords: a manifest, and candidates with a score for batches of queries.
//
// Scoring (0..100, see similarity.ts): 100 for a case-insensitive exact match of the name;
// `match: true` only when that candidate is the one and only exact match, so OpenRefine
// auto-matches just unambiguous names. 95 for an exact match of an alternative name (never a
// match). Otherwise the name's similarity (at most 98), or 0.95 × an alternative name's.
import { hasControlChars } from './fields.js';
import { invalid } from '../../errors.js';
import type { Ctx } from '../context.js';
import { ACTOR_TYPES } from './actors.js';
import { isPlainObject, isStringArray, parseJsonColumn } from './fields.js';
import { likePattern } from './list.js';
import { normalise, scoreName } from './similarity.js';

export type ReconcileKind = 'actors' | 'places' | 'keywords';
export const RECONCILE_KINDS: readonly ReconcileKind[] = ['actors', 'places', 'keywords'];

export const MAX_QUERIES = 50;
export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 5;
const MAX_QUERY_LENGTH = 1000;
/** Rows fetched per query by substring before scoring: enough for ranking, bounded in cost. */
const POOL = 200;

interface TypeRef {
  id: string;
  name: string;
}

const titleCase = (id: string) => id.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

const TYPES: Record<ReconcileKind, TypeRef[]> = {
  actors: ACTOR_TYPES.map((id) => ({ id, name: titleCase(id) })),
  places: [{ id: 'place', name: 'Place' }],
  keywords: [{ id: 'keyword', name: 'Keyword' }],
};

export interface Manifest {
  versions: string[];
  name: string;
  identifierSpace: string;
  schemaSpace: string;
  defaultTypes: TypeRef[];
  /** Where a person can look at an entity; keywords have no page of their own. */
  view?: { url: string };
}

/** The service manifest (GET without `queries`). `baseUrl` is the origin the client used. */
export function manifest(kind: ReconcileKind, baseUrl: string): Manifest {
  return {
    versions: ['0.1', '0.2'],
    name: `archivectl ${kind}`,
    identifierSpace: `${baseUrl}/api/${kind}/`,
    schemaSpace: `${baseUrl}/api/${kind}/types/`,
    defaultTypes: TYPES[kind],
    ...(kind === 'keywords' ? {} : { view: { url: `${baseUrl}/api/${kind}/{{id}}` } }),
  };
}

export interface ReconcileQuery {
  /** The key the client gave the query (`q0`, …). */
  key: string;
  query: string;
  limit: number;
  /** Type ids to restrict to, or null for any. */
  types: string[] | null;
}

export interface Candidate {
  id: string;
  name: string;
  score: number;
  match: boolean;
  type: TypeRef[];
  description?: string;
}

export type ReconcileAnswer = Record<string, { result: Candidate[] }>;

const shortKey = (key: string) => (key.length > 40 ? `${key.slice(0, 40)}…` : key);

/**
 * `queries` as the client sent it: JSON text (a query-string or form value) or an already
 * parsed JSON value (a JSON body). Every problem is a 422 naming the query.
 */
export function parseQueries(raw: unknown): ReconcileQuery[] {
  if (raw === undefined || raw === null || raw === '') throw invalid('invalid reconciliation request', { queries: 'required' });
  if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) {
    throw invalid('invalid reconciliation request', { queries: 'must be given once' });
  }
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      throw invalid('invalid reconciliation request', { queries: 'must be a JSON object' });
    }
  }
  if (!isPlainObject(value)) throw invalid('invalid reconciliation request', { queries: 'must be a JSON object of queries' });
  const keys = Object.keys(value);
  if (keys.length > MAX_QUERIES) {
    throw invalid('invalid reconciliation request', { queries: `at most ${MAX_QUERIES} queries per request` });
  }
  const errors: Record<string, string> = {};
  const out: ReconcileQuery[] = [];
  for (const key of keys) {
    const field = `queries.${shortKey(key)}`;
    const q = value[key];
    if (!isPlainObject(q)) {
      errors[field] = 'must be an object with "query"';
      continue;
    }
    if (typeof q.query !== 'string') {
      errors[`${field}.query`] = 'required, a string';
      continue;
    }
    const query = q.query.normalize('NFKC').trim().replace(/\s+/g, ' ');
    if ([...query].length > MAX_QUERY_LENGTH) {
      errors[`${field}.query`] = `must be at most ${MAX_QUERY_LENGTH} characters`;
      continue;
    }
    if (hasControlChars(query)) {
      errors[`${field}.query`] = 'must not contain control characters';
      continue;
    }
    let limit = DEFAULT_LIMIT;
    if (q.limit !== undefined && q.limit !== null) {
      const n = typeof q.limit === 'string' && /^[0-9]{1,6}$/.test(q.limit) ? Number(q.limit) : q.limit;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
        errors[`${field}.limit`] = 'must be a positive integer';
        continue;
      }
      limit = Math.min(n, MAX_LIMIT);
    }
    let types: string[] | null = null;
    if (q.type !== undefined && q.type !== null && q.type !== '') {
      if (typeof q.type === 'string') types = [q.type];
      else if (isStringArray(q.type) && q.type.length <= 20) types = q.type.length > 0 ? q.type : null;
      else {
        errors[`${field}.type`] = 'must be a type id or an array of type ids';
        continue;
      }
    }
    out.push({ key, query, limit, types });
  }
  if (Object.keys(errors).length > 0) throw invalid('invalid reconciliation request', errors);
  return out;
}

export interface Entity {
  id: number;
  name: string;
  alternativeNames: string[];
  type: TypeRef[];
  description?: string;
}

/** Scores, orders (score, then name, then id) and cuts a pool of entities for one query. */
export function rank(query: string, pool: Entity[], limit: number): Candidate[] {
  const scored = pool.map((e) => {
    let score = scoreName(query, e.name);
    for (const alt of e.alternativeNames) {
      if (score >= 95) break;
      const s = scoreName(query, alt);
      score = Math.max(score, s === 100 ? 95 : Math.round(0.95 * s));
    }
    return { e, score };
  });
  const exact = scored.filter((s) => s.score === 100).length;
  scored.sort((a, b) => b.score - a.score || normalise(a.e.name).localeCompare(normalise(b.e.name)) || a.e.id - b.e.id);
  return scored.slice(0, limit).map(({ e, score }) => ({
    id: String(e.id),
    name: e.name,
    score,
    match: score === 100 && exact === 1,
    type: e.type,
    ...(e.description ? { description: e.description } : {}),
  }));
}

/**
 * Substrings to fetch candidates by (the scoring happens afterwards, in code). The longest few
 * words of the query, and of longer words also their first and last four characters, so a
 * typo ("Schiler") or an accent ("Zurich") in one half of a word still finds it.
 */
export function searchWords(query: string): string[] {
  const words = [...new Set(query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean))];
  const long = words.filter((w) => [...w].length >= 2);
  const chosen = (long.length > 0 ? long : words).sort((a, b) => b.length - a.length).slice(0, 4);
  const out = new Set<string>();
  for (const word of chosen) {
    out.add(word);
    const chars = [...word];
    if (chars.length >= 6) {
      out.add(chars.slice(0, 4).join(''));
      out.add(chars.slice(-4).join(''));
    }
  }
  return [...out];
}

interface Row {
  id: number;
  name: string;
  alternative_names?: unknown;
  type?: string;
  date_start?: string | null;
  date_end?: string | null;
  city?: string | null;
  country_code?: string | null;
}

const TABLE_COLUMNS: Record<ReconcileKind, string[]> = {
  actors: ['id', 'name', 'alternative_names', 'type', 'date_start', 'date_end'],
  places: ['id', 'name', 'alternative_names', 'city', 'country_code'],
  keywords: ['id', 'name'],
};

function toEntity(kind: ReconcileKind, row: Row): Entity {
  const alternativeNames = kind === 'keywords' ? [] : (parseJsonColumn(row.alternative_names, isStringArray) ?? []);
  if (kind === 'actors') {
    const type = TYPES.actors.find((t) => t.id === row.type) ?? { id: String(row.type), name: String(row.type) };
    const dates = row.date_start || row.date_end ? `, ${row.date_start ?? ''}–${row.date_end ?? ''}` : '';
    return { id: Number(row.id), name: row.name, alternativeNames, type: [type], description: `${type.name}${dates}` };
  }
  if (kind === 'places') {
    const where = [row.city, row.country_code].filter(Boolean).join(', ');
    return { id: Number(row.id), name: row.name, alternativeNames, type: TYPES.places, ...(where ? { description: where } : {}) };
  }
  return { id: Number(row.id), name: row.name, alternativeNames, type: TYPES.keywords };
}

/** The candidate pool of one query: exact name matches plus rows containing a query word. */
async function pool(ctx: Ctx, kind: ReconcileKind, q: ReconcileQuery): Promise<Entity[]> {
  let typeFilter: string[] | null = null;
  if (q.types) {
    const known = q.types.filter((t) => TYPES[kind].some((k) => k.id === t));
    // A type this service does not have: no entity can be of it.
    if (known.length === 0) return [];
    if (kind === 'actors') typeFilter = known;
  }
  const base = () => {
    const b = ctx.db(kind).select(...TABLE_COLUMNS[kind]);
    return typeFilter ? b.whereIn('type', typeFilter) : b;
  };
  const lower = q.query.toLowerCase();
  const words = searchWords(q.query);
  const [exact, similar] = await Promise.all([
    base().where('name_lower', lower).orderBy('id').limit(POOL) as Promise<Row[]>,
    words.length === 0
      ? Promise.resolve([] as Row[])
      : (base()
          .where((w) => {
            for (const word of words) {
              const pattern = likePattern(word);
              void w.orWhereRaw(`?? LIKE ? ESCAPE '\\'`, ['name_lower', pattern]);
              // Alternative names are JSON text; the words hold no quote or backslash, so a
              // substring of the text is a substring of a name.
              if (kind !== 'keywords') void w.orWhereRaw(`LOWER(??) LIKE ? ESCAPE '\\'`, ['alternative_names', pattern]);
            }
          })
          .orderBy('id')
          .limit(POOL) as Promise<Row[]>),
  ]);
  const byId = new Map<number, Entity>();
  for (const row of [...exact, ...similar]) {
    const id = Number(row.id);
    if (!byId.has(id)) byId.set(id, toEntity(kind, row));
  }
  return [...byId.values()];
}

/** Answers a batch of queries: `{"q0": {"result": [candidate, …]}, …}`. */
export async function reconcile(ctx: Ctx, kind: ReconcileKind, queries: unknown): Promise<ReconcileAnswer> {
  const parsed = parseQueries(queries);
  const answer = Object.create(null) as ReconcileAnswer;
  for (const q of parsed) {
    answer[q.key] = { result: q.query === '' ? [] : rank(q.query, await pool(ctx, kind, q), q.limit) };
  }
  return answer;
}
