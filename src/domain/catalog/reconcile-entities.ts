// What the reconciliation services know of a register's records: its kinds and types, the
// columns they read, and a record as the protocol's entity (id, name, types, description).
import type { Knex } from 'knex';
import type { Ctx } from '../context.js';
import { ACTOR_TYPES } from './resources/index.js';
import { isStringArray } from './json-values.js';
import { parseJsonColumn } from './resources/columns.js';
import { parseRowId } from '../../db/row-id.js';

export type ReconcileKind = 'actors' | 'places' | 'keywords';
export const RECONCILE_KINDS: readonly ReconcileKind[] = ['actors', 'places', 'keywords'];

export interface TypeRef {
  id: string;
  name: string;
}

const titleCase = (id: string) => id.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** The types of each register: actors have their `type`; places and keywords one type each. */
export const TYPES: Record<ReconcileKind, readonly TypeRef[]> = {
  actors: ACTOR_TYPES.map((id) => ({ id, name: titleCase(id) })),
  places: [{ id: 'place', name: 'Place' }],
  keywords: [{ id: 'keyword', name: 'Keyword' }],
};

/** A type id of this register, also given by its name ("Corporate body"), or null. */
export function typeIdOf(kind: ReconcileKind, given: string): string | null {
  const lower = given.trim().toLowerCase();
  return TYPES[kind].find((t) => t.id === given || t.name.toLowerCase() === lower)?.id ?? null;
}

/** A row as the services read it: every column that a description, property or preview shows. */
export interface Row {
  id: number;
  name: string;
  alternative_names?: unknown;
  type?: string;
  date_start?: string | null;
  date_end?: string | null;
  comment?: string | null;
  gnd?: string | null;
  city?: string | null;
  state?: string | null;
  address?: string | null;
  country_code?: string | null;
  location?: string | null;
  geonames?: string | null;
}

export const COLUMNS: Record<ReconcileKind, readonly string[]> = {
  actors: ['id', 'name', 'alternative_names', 'type', 'date_start', 'date_end', 'comment', 'gnd'],
  places: ['id', 'name', 'alternative_names', 'city', 'state', 'address', 'country_code', 'location', 'comment', 'gnd', 'geonames'],
  keywords: ['id', 'name', 'gnd'],
};

export interface Entity {
  id: number;
  name: string;
  alternativeNames: string[];
  type: TypeRef[];
  description?: string;
}

export function alternativeNamesOf(kind: ReconcileKind, row: Row): string[] {
  return kind === 'keywords' ? [] : (parseJsonColumn(row.alternative_names, isStringArray) ?? []);
}

export function typesOf(kind: ReconcileKind, row: Row): TypeRef[] {
  if (kind !== 'actors') return [...TYPES[kind]];
  return [TYPES.actors.find((t) => t.id === row.type) ?? { id: String(row.type), name: String(row.type) }];
}

/** A short line that tells namesakes apart: "Person, 1759–1805", "Zürich, CH". */
export function descriptionOf(kind: ReconcileKind, row: Row): string | undefined {
  if (kind === 'actors') {
    const dates = row.date_start || row.date_end ? `, ${row.date_start ?? ''}–${row.date_end ?? ''}` : '';
    return `${typesOf(kind, row)[0]?.name ?? ''}${dates}`;
  }
  if (kind === 'places') {
    const where = [row.city, row.country_code].filter(Boolean).join(', ');
    return where || undefined;
  }
  return undefined;
}

export function toEntity(kind: ReconcileKind, row: Row): Entity {
  const description = descriptionOf(kind, row);
  return {
    id: Number(row.id),
    name: row.name,
    alternativeNames: alternativeNamesOf(kind, row),
    type: typesOf(kind, row),
    ...(description ? { description } : {}),
  };
}

/** The row id an entity id names, or null ("12" names row 12; "012", "1e3", "x" name none). */
export const rowIdOf = (id: string): number | null => parseRowId(id);

/** The rows with these ids (in no particular order; unknown ids are left out). */
export async function rowsByIds(ctx: Ctx, kind: ReconcileKind, ids: readonly number[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  return (await ctx.db(kind).select(...COLUMNS[kind]).whereIn('id', [...new Set(ids)])) as Row[];
}

/**
 * Adds, as OR alternatives, `name_lower LIKE pattern` and, where the register has them, the same
 * on the alternative names' JSON text (lower-cased: a substring without quotes or backslashes
 * of that text is a substring of a name).
 */
export function orNameLike(w: Knex.QueryBuilder, kind: ReconcileKind, pattern: string): void {
  void w.orWhereRaw(`?? LIKE ? ESCAPE '\\'`, ['name_lower', pattern]);
  if (kind !== 'keywords') void w.orWhereRaw(`LOWER(??) LIKE ? ESCAPE '\\'`, ['alternative_names', pattern]);
}
