// Substring search through the dialect's own text index: SQLite keeps an FTS5 trigram table per
// searched table (`<table>_text`, filled by triggers; migration catalog_scale), PostgreSQL pg_trgm
// GIN indexes its planner uses for `LIKE '%…%'` by itself. The caller's LIKE states what matches.
import type { Knex } from 'knex';
import { isSqlite, type Db } from './dialect.js';

const TRIGRAM_MIN = 3;

/**
 * The FTS5 query for rows holding any of `words` in any of `columns`, or null where the index is not used
 * (PostgreSQL, or a word too short for trigrams: the caller's LIKE then runs alone).
 */
export function textMatchOf(db: Db, columns: readonly string[], words: readonly string[]): string | null {
  if (!isSqlite(db) || words.length === 0 || words.some((w) => [...w].length < TRIGRAM_MIN)) return null;
  // Each word an FTS5 phrase, its quotes doubled: any text is one literal phrase.
  const phrases = words.map((w) => `"${w.replace(/"/g, '""')}"`);
  return `{${columns.join(' ')}} : (${phrases.join(' OR ')})`;
}

export const textTableOf = (table: string) => `${table}_text`;

/** The id of a row joined to the index's hits (as `text_hits`), to order and page by. */
export const TEXT_HIT_ID = 'text_hits.text_id';

/** Narrows `b` to rows holding any of `words`, by id: the hits joined in id order, so a LIMIT stops after its page. */
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
