// The W3C Reconciliation Service API 0.2 as OpenRefine speaks it (v1/ reads the 1.0 draft into the same queries).
// Scores 0..100; `match: true` only for a name's one exact match, so OpenRefine auto-matches unambiguous names.
import type { Ctx } from '../../context.js';
import { normalise, scoreName } from './similarity.js';
import { parseBatch, type ReconcileQuery } from './batch.js';
import {
  withNameWords,
  propertyOf,
  rowIdOf,
  selectRows,
  toEntity,
  typeIdOf,
  type Entity,
  type ReconcileKind,
} from './entities.js';
import type { Candidate, ReconcileAnswer } from './answers.js';
import type { PropertyMatch, Row } from './projection.js';
import { POOL } from './input.js';

export { RECONCILE_KINDS, type Entity, type ReconcileKind } from './entities.js';
export { manifest } from './manifest.js';
export { BatchTooLarge, MAX_QUERIES } from './input.js';
export { parseBatch, type ReconcileQuery } from './batch.js';

/** The score of a candidate found by non-identifying properties alone (no name to compare). */
const PROPERTIES_ONLY_SCORE = 50;

export type { Candidate, ReconcileAnswer } from './answers.js';

/** Scores, orders and cuts one query's pool; with `fixedScore`, every entity scores that. */
export function rank(query: string, pool: Entity[], limit: number, fixedScore?: number): Candidate[] {
  const scored = pool.map((e) => {
    if (fixedScore !== undefined) return { e, score: fixedScore };
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

/** Substrings to fetch candidates by: the longest words and, of long ones, their first and last four characters. */
export function searchWords(query: string): string[] {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const long = words.filter((w) => [...w].length >= 2);
  const chosen = (long.length > 0 ? long : words).sort((a, b) => b.length - a.length).slice(0, 4);
  const withHalves = chosen.flatMap((word) => {
    const chars = [...word];
    return chars.length >= 6 ? [word, chars.slice(0, 4).join(''), chars.slice(-4).join('')] : [word];
  });
  return [...new Set(withHalves)];
}

/** A query's property that this register can compare, with the values as stored. */
type Comparison = { match: PropertyMatch; values: string[] };

/** Entity ids as a property: each names its record, so it identifies like an authority id. */
const ID_MATCH: PropertyMatch = {
  column: 'id',
  normalise: (v) => rowIdOf(v.trim())?.toString() ?? null,
  identifies: true,
};

/** The query's comparable properties; properties this register cannot compare are ignored. */
function comparisons(kind: ReconcileKind, q: ReconcileQuery): Comparison[] {
  const given = q.properties.map((p) => ({ match: propertyOf(kind, p.pid)?.match, values: p.values }));
  if (q.ids) given.unshift({ match: ID_MATCH, values: q.ids });
  return given.flatMap(({ match, values }) => {
    if (!match) return [];
    const stored = values.flatMap((v) => match.normalise(v) ?? []);
    return [{ match, values: [...new Set(match.caseInsensitive ? stored.map((n) => n.toLowerCase()) : stored)] }];
  });
}

function satisfies(row: Row, all: Comparison[]): boolean {
  return all.every(({ match, values }) => {
    // Text columns, and the numeric id (as its digits).
    const cell = row[match.column];
    const raw = typeof cell === 'number' ? String(cell) : cell;
    return typeof raw === 'string' && values.includes(match.caseInsensitive ? raw.toLowerCase() : raw);
  });
}

/** The candidate pool of one query, with the score every candidate gets when it is fixed. */
async function pool(ctx: Ctx, kind: ReconcileKind, q: ReconcileQuery) {
  const typeFilter = q.types && [...new Set(q.types.flatMap((t) => typeIdOf(kind, t) ?? []))];
  // A type this service does not have: no entity can be of it.
  if (typeFilter?.length === 0) return { entities: [] };
  const compare = comparisons(kind, q);
  // A comparable property none of whose values can be stored (a malformed GND id): no match.
  if (compare.some((c) => c.values.length === 0)) return { entities: [] };
  const identifying = compare.filter((c) => c.match.identifies);
  const base = () => selectRows(ctx, kind, typeFilter);
  // The properties as SQL conditions (case-insensitive ones are checked again in code below).
  const byProperties = (list: Comparison[]) => {
    let b = base();
    for (const { match, values } of list) {
      b = match.caseInsensitive
        ? b.whereRaw(`LOWER(??) IN (${values.map(() => '?').join(', ')})`, [match.column, ...values])
        : b.whereIn(match.column, values);
    }
    return b.orderBy('id').limit(POOL) as Promise<Row[]>;
  };
  const lookups: Promise<Row[]>[] = [];
  if (q.query === '') {
    lookups.push(byProperties(compare));
  } else {
    const words = searchWords(q.query);
    lookups.push(base().where('name_lower', q.query.toLowerCase()).orderBy('id').limit(POOL) as Promise<Row[]>);
    // The words hold no quote or backslash (see withNameWords).
    if (words.length > 0) lookups.push(withNameWords(ctx, base(), kind, words).limit(POOL) as Promise<Row[]>);
    // The entity an identifier names is a candidate whatever its name is spelled like.
    if (identifying.length > 0) lookups.push(byProperties(identifying));
  }
  const byId = new Map<number, Entity>();
  for (const row of (await Promise.all(lookups)).flat()) {
    const id = Number(row.id);
    if (!byId.has(id) && satisfies(row, compare)) byId.set(id, toEntity(kind, row));
  }
  const entities = [...byId.values()];
  if (identifying.length > 0) return { entities, fixedScore: 100 };
  if (q.query === '') return { entities, fixedScore: PROPERTIES_ONLY_SCORE };
  return { entities };
}

/** The candidates of one query, best first (none for a query with neither name nor properties). */
export async function candidatesFor(ctx: Ctx, kind: ReconcileKind, q: ReconcileQuery): Promise<Candidate[]> {
  if (q.query === '' && q.properties.length === 0 && !q.ids) return [];
  const { entities, fixedScore } = await pool(ctx, kind, q);
  return rank(q.query, entities, q.limit, fixedScore);
}

/** Answers a batch of queries: `{"q0": {"result": [candidate, …]}, …}`; an unusable query has `result: []` (0.2 requires it), why in `error`. */
export async function reconcile(ctx: Ctx, kind: ReconcileKind, queries: unknown): Promise<ReconcileAnswer> {
  const answer = Object.create(null) as ReconcileAnswer;
  for (const entry of parseBatch(queries)) {
    answer[entry.key] =
      'error' in entry ? { result: [], error: entry.error } : { result: await candidatesFor(ctx, kind, entry.query) };
  }
  return answer;
}
