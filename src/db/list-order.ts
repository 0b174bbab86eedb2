// The order of a catalogue list, in the form its index serves on each dialect (see the migration
// catalog_scale): by a column, NULLs last ascending and first descending, ties by id. PostgreSQL
// orders NULLs that way by itself; SQLite puts them first, so a nullable column is ordered by
// `(column IS NULL), column` there, the expression its index holds.
import type { Knex } from 'knex';
import { isPg, type Db } from './dialect.js';

export interface SortKey {
  column: string;
  nullable: boolean;
  asc: boolean;
  /** The column holding the row's id in this query (`id` unless joined, see text-index.ts). */
  idColumn?: string;
}

/** Appends the ORDER BY of `key` (reversed when `reverse`: a page read from the end). */
export function orderByKey(db: Db, b: Knex.QueryBuilder, key: SortKey, reverse = false): Knex.QueryBuilder {
  const dir = key.asc !== reverse ? 'asc' : 'desc';
  if (key.column === 'id') return b.orderBy(key.idColumn ?? 'id', dir);
  if (key.nullable && !isPg(db)) void b.orderByRaw(`(?? IS NULL) ${dir}`, [key.column]);
  return b.orderBy(key.column, dir).orderBy('id', dir);
}

/** A row's place in the order: its sort value and id. */
export interface KeyPosition {
  value: string | null;
  id: number;
}

/** Narrows `b` to the rows after `at` in the order of `key` (a keyset page). */
export function afterPosition(b: Knex.QueryBuilder, key: SortKey, at: KeyPosition): Knex.QueryBuilder {
  const op = key.asc ? '>' : '<';
  if (key.column === 'id') return b.where(key.idColumn ?? 'id', op, at.id);
  const { column } = key;
  if (at.value === null) {
    // Ascending, the NULLs come last: only NULLs with a later id remain. Descending they come
    // first: later NULLs, then every non-NULL value.
    return b.where((w) => {
      void w.where((n) => {
        void n.whereNull(column).where('id', op, at.id);
      });
      if (!key.asc) void w.orWhereNotNull(column);
    });
  }
  return b.where((w) => {
    void w.whereRaw(`(??, ??) ${op} (?, ?)`, [column, 'id', at.value, at.id]);
    if (key.asc && key.nullable) void w.orWhereNull(column);
  });
}
