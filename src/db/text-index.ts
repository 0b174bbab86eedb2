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
 * Narrows `b` (over `table`) to rows holding any of `words` in any of the index's `columns`
 * (the FTS column names, see the migration). On PostgreSQL, or when a word is too short for
 * trigrams, `b` is unchanged: the caller's LIKE is then what runs (through pg_trgm, or a scan).
 */
export function withinTextIndex(
  db: Db,
  b: Knex.QueryBuilder,
  table: string,
  columns: readonly string[],
  words: readonly string[],
): Knex.QueryBuilder {
  if (!isSqlite(db) || !indexable(words)) return b;
  const match = `{${columns.join(' ')}} : (${words.map(phrase).join(' OR ')})`;
  const fts = `${table}_text`;
  return b.whereRaw(`??.?? IN (SELECT rowid FROM ?? WHERE ?? MATCH ?)`, [table, 'id', fts, fts, match]);
}
