// The suggest services of Reconciliation 0.2 and 1.0-draft: auto-completion of a register's
// entities, properties and types in OpenRefine's dialogs. GET with `prefix` (typed so far) and
// `cursor` (1.0-draft: `offset`), the suggestions to skip; both versions answer alike.
import { invalid } from '../../../errors.js';
import type { Ctx } from '../../context.js';
import { likePrefix, orWhereLikePattern } from '../list/query.js';
import { optionalParam, param, shortText, wholeNumber, type QueryInput } from '../list/params.js';
import { parseInput, v } from '../../../validation.js';
import { cleanText, MAX_LIMIT, POOL } from './input.js';
import {
  alternativeNamesOf,
  descriptionOf,
  withNameWords,
  propertiesOf,
  rowIdOf,
  selectRows,
  serviceOf,
  typeIdOf,
  typesOf,
  type ReconcileKind,
} from './entities.js';
import type { SUGGESTED_ENTITIES, SUGGESTED_PROPERTIES, SUGGESTED_TYPES } from './answers.js';
import type { Row } from './projection.js';
import { fold, normalise } from './similarity.js';

const MAX_PREFIX_LENGTH = 255;
const MAX_CURSOR = 10_000;
const DEFAULT_LIMIT = 10;

export interface SuggestParams {
  /** What the user typed (normalised); '' suggests no entity. */
  prefix: string;
  cursor: number;
  limit: number;
  /** Entities only: restrict to these type ids (`type`), or null for any. */
  types: string[] | null;
}

export interface SuggestItem {
  id: string;
  name: string;
  description?: string;
}

/** `prefix` (0.2) or `query` (OpenRefine's suggest widget's default); `spell`, `_` … are ignored. */
export const SUGGEST_PARAMS = v.object({
  prefix: optionalParam(shortText()),
  query: optionalParam(shortText()),
  cursor: param(wholeNumber(0, MAX_CURSOR), 0),
  limit: param(wholeNumber(1, MAX_LIMIT), DEFAULT_LIMIT),
  type: optionalParam(shortText()),
});

export const DRAFT_SUGGEST_PARAMS = v.object({
  prefix: optionalParam(shortText()),
  offset: param(wholeNumber(0, MAX_CURSOR), 0),
  limit: param(wholeNumber(1, MAX_LIMIT), DEFAULT_LIMIT),
  type: optionalParam(shortText()),
});

const refused = (errors: Record<string, string>) => invalid('invalid suggest request', errors);

export function parseSuggestParams(kind: ReconcileKind, query: QueryInput): SuggestParams {
  const { prefix: given, query: typed, cursor, limit, type } = parseInput(SUGGEST_PARAMS, query, refused);
  return suggestParams(kind, given !== undefined ? 'prefix' : 'query', given ?? typed ?? '', cursor, limit, type);
}

export function parseDraftSuggestParams(kind: ReconcileKind, query: QueryInput): SuggestParams {
  const { prefix, offset, limit, type } = parseInput(DRAFT_SUGGEST_PARAMS, query, refused);
  return suggestParams(kind, 'prefix', prefix ?? '', offset, limit, type);
}

function suggestParams(kind: ReconcileKind, at: string, typed: string, cursor: number, limit: number, type?: string) {
  const c = cleanText(typed, MAX_PREFIX_LENGTH);
  if (!c.ok) throw refused({ [at]: c.message });
  return { prefix: c.text, cursor, limit, types: type === undefined ? null : [typeIdOf(kind, type) ?? type] };
}

/** How well a name answers what was typed: lower is better, null for not at all. */
function rankOf(prefix: string, name: string): number | null {
  const p = normalise(prefix);
  const n = normalise(name);
  if (n === p) return 0;
  if (n.startsWith(p)) return 1;
  if (n.split(/[^\p{L}\p{N}]+/u).some((w) => w.startsWith(p))) return 2;
  if (n.includes(p)) return 3;
  const fp = fold(prefix);
  if (fp !== '' && fold(name).includes(fp)) return 4; // "zurich" finds "Zürich"
  return null;
}

/** Entities whose name begins with, has a word beginning with, or holds the text, best first; or the id typed. */
export async function suggestEntities(
  ctx: Ctx,
  kind: ReconcileKind,
  p: SuggestParams,
): Promise<v.InferOutput<typeof SUGGESTED_ENTITIES>> {
  if (p.prefix === '') return { result: [] };
  const { types, typeColumn } = serviceOf(kind);
  // Without a type column every record has every type: one of them must be asked for.
  if (p.types && !typeColumn && !p.types.some((t) => types.some((k) => k.id === t))) return { result: [] };
  const base = () => selectRows(ctx, kind, p.types);
  const lower = p.prefix.toLowerCase();
  const id = rowIdOf(p.prefix);
  const lookups: Promise<Row[]>[] = [
    // Names that begin with the text, in name order: the first pages are always complete.
    base()
      .where((w) => void orWhereLikePattern(w, 'name_lower', likePrefix(lower)))
      .orderBy('name_lower')
      .orderBy('id')
      .limit(p.cursor + p.limit) as Promise<Row[]>,
    withNameWords(ctx, base(), kind, [lower]).limit(POOL) as Promise<Row[]>,
  ];
  if (id !== null) lookups.push(base().where('id', id) as Promise<Row[]>);
  // An alternative name that answers ranks after every name that does.
  const altRank = (row: Row) => {
    const best = Math.min(...alternativeNamesOf(kind, row).map((a) => rankOf(p.prefix, a) ?? Infinity));
    return Number.isFinite(best) ? 5 + best : null;
  };
  const seen = new Map<number, { row: Row; rank: number }>();
  for (const row of (await Promise.all(lookups)).flat()) {
    const rowId = Number(row.id);
    if (seen.has(rowId)) continue;
    const rank = rankOf(p.prefix, row.name) ?? altRank(row) ?? (rowId === id ? 0.5 : null);
    if (rank !== null) seen.set(rowId, { row, rank });
  }
  const ranked = [...seen.values()].sort(
    (a, b) =>
      a.rank - b.rank ||
      normalise(a.row.name).localeCompare(normalise(b.row.name)) ||
      Number(a.row.id) - Number(b.row.id),
  );
  return {
    result: ranked.slice(p.cursor, p.cursor + p.limit).map(({ row }) => {
      const description = descriptionOf(kind, row);
      return {
        id: String(row.id),
        name: row.name,
        ...(description ? { description } : {}),
        notable: typesOf(kind, row),
      };
    }),
  };
}

/** Items whose id or name contains what was typed (case-insensitive), those beginning with it first. */
function suggestFrom<T extends SuggestItem>(items: readonly T[], p: SuggestParams): { result: T[] } {
  const typed = normalise(p.prefix);
  const ranked = items.flatMap((item, i) => {
    const byId = item.id.toLowerCase().startsWith(typed) ? 1 : item.id.toLowerCase().includes(typed) ? 3 : Infinity;
    const rank = Math.min(rankOf(p.prefix, item.name) ?? Infinity, byId);
    return typed === '' || Number.isFinite(rank) ? [{ item, rank: typed === '' ? 0 : rank, i }] : [];
  });
  ranked.sort((a, b) => a.rank - b.rank || a.i - b.i);
  return { result: ranked.slice(p.cursor, p.cursor + p.limit).map((r) => r.item) };
}

/** The register's properties (those the data extension service returns), for auto-completion. */
export function suggestProperties(kind: ReconcileKind, p: SuggestParams): v.InferOutput<typeof SUGGESTED_PROPERTIES> {
  const properties = propertiesOf(kind).map(({ id, name, description }) => ({ id, name, description }));
  return suggestFrom(properties, p);
}

export function suggestTypes(kind: ReconcileKind, p: SuggestParams): v.InferOutput<typeof SUGGESTED_TYPES> {
  const types = serviceOf(kind).types.map((t) => ({ ...t }));
  return suggestFrom(types, p);
}
