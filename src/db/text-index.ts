// Substring search through a text index, the dialect's own: SQLite keeps an FTS5 table with the
// trigram tokenizer per searched table (`<table>_text`, filled by triggers, see the migration
// catalog_scale), PostgreSQL keeps pg_trgm GIN indexes that its planner uses for `LIKE '%…%'`
// by itself. The caller keeps its LIKE condition either way: it states what matches, and the
// index only finds the candidates fast.
import type { Knex } from 'knex';
import { isSqlite, type Db } from './dialect.js';

/** A trigram index finds nothing shorter than this; such searches scan. */
export const TRIGRAM_MIN = 3;

/** Whether every word is long enough for the trigram index. */
export function indexable(words: readonly string[]): boolean {
  return words.length > 0 && words.every((w) => [...w].length >= TRIGRAM_MIN);
}

/** An FTS5 string (a phrase): its quotes doubled, so any text is one literal phrase. */
const phrase = (word: string) => `"${word.replace(/"/g, '""')}"`;

/**
 * The FTS5 query for rows holding any of `words` in any of the index's `columns` (the FTS
 * column names, see the migration), or null where the index is not used: on PostgreSQL, or
 * when a word is too short for trigrams (the caller's LIKE is then what runs, through pg_trgm
 * or as a scan).
 */
export function textMatchOf(db: Db, columns: readonly string[], words: readonly string[]): string | null {
  if (!isSqlite(db) || !indexable(words)) return null;
  return `{${columns.join(' ')}} : (${words.map(phrase).join(' OR ')})`;
}

/** The FTS5 table of `table` (SQLite; see the migration catalog_scale). */
export const textTableOf = (table: string) => `${table}_text`;

/** The id of a row joined by joinTextMatch, to order and page by: the index yields it in order. */
const TEXT_HIT_ID = 'text_hits.text_id';

/**
 * Joins `b` (over `table`) to the index's hits for `match`. Ordered by TEXT_HIT_ID, SQLite
 * walks the hits in id order and looks each row up by its key, so a page (LIMIT) stops after its
 * rows; `id IN (hits)` reads every hit first, which costs with a common word.
 */
function joinTextMatch(db: Db, b: Knex.QueryBuilder, table: string, match: string): Knex.QueryBuilder {
  const fts = textTableOf(table);
  const hits = db(fts).select({ text_id: 'rowid' }).whereRaw(`?? MATCH ?`, [fts, match]).as('text_hits');
  return b.join(hits, `${table}.id`, TEXT_HIT_ID);
}

/**
 * Narrows `b` (over `table`) to rows holding any of `words` (see textMatchOf), ordered by id:
 * through joinTextMatch where the index is used (a LIMIT then stops early), unnarrowed and
 * ordered by `id` where no index is used (the caller's LIKE decides alone).
 */
export function withinTextIndexById(
  db: Db,
  b: Knex.QueryBuilder,
  table: string,
  columns: readonly string[],
  words: readonly string[],
): Knex.QueryBuilder {
  const match = textMatchOf(db, columns, words);
  return match === null ? b.orderBy('id') : joinTextMatch(db, b, table, match).orderBy(TEXT_HIT_ID);
}
