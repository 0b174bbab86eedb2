// Substring search through the dialect's own text index: SQLite keeps an FTS5 trigram table per
// searched table (`<table>_text`, filled by triggers; migration catalog_scale), PostgreSQL pg_trgm
// GIN indexes its planner uses for `LIKE '%…%'` by itself. The caller keeps its LIKE condition
// either way: it states what matches; the index only finds the candidates fast.
import type { Knex } from 'knex';
import { isSqlite, type Db } from './dialect.js';

/** A trigram index finds nothing shorter than this; such searches scan. */
const TRIGRAM_MIN = 3;

/** An FTS5 string (a phrase): its quotes doubled, so any text is one literal phrase. */
const phrase = (word: string) => `"${word.replace(/"/g, '""')}"`;

/**
 * The FTS5 query for rows holding any of `words` in any of the index's `columns` (FTS column
 * names, see the migration), or null where the index is not used: on PostgreSQL, or when a word
 * is too short for trigrams (the caller's LIKE then runs alone, through pg_trgm or as a scan).
 */
export function textMatchOf(db: Db, columns: readonly string[], words: readonly string[]): string | null {
  if (!isSqlite(db) || words.length === 0 || words.some((w) => [...w].length < TRIGRAM_MIN)) return null;
  return `{${columns.join(' ')}} : (${words.map(phrase).join(' OR ')})`;
}

/** The FTS5 table of `table` (SQLite; see the migration catalog_scale). */
export const textTableOf = (table: string) => `${table}_text`;

/** The id of a row joined to the index's hits (as `text_hits`), to order and page by. */
export const TEXT_HIT_ID = 'text_hits.text_id';

/**
 * Narrows `b` (over `table`) to rows holding any of `words` (see textMatchOf), ordered by id.
 * Where the index is used, its hits are joined and ordered by TEXT_HIT_ID: SQLite walks them in
 * id order and looks each row up by its key, so a page (LIMIT) stops after its rows; `id IN
 * (hits)` reads every hit first, which costs with a common word. Without it, the caller's LIKE
 * decides alone.
 */
export function withinTextIndexById(
  db: Db,
  b: Knex.QueryBuilder,
  table: string,
  columns: readonly string[],
  words: readonly string[],
): Knex.QueryBuilder {
  const match = textMatchOf(db, columns, words);
  if (match === null) return b.orderBy('id');
  const fts = textTableOf(table);
  const hits = db(fts).select({ text_id: 'rowid' }).whereRaw(`?? MATCH ?`, [fts, match]).as('text_hits');
  return b.join(hits, `${table}.id`, TEXT_HIT_ID).orderBy(TEXT_HIT_ID);
}
