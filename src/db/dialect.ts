// The database handle and the dialect it speaks. Every check of "SQLite or PostgreSQL?" and
// every dialect-specific error code is answered here, so nothing above src/db/ needs to ask.
import type { Knex } from 'knex';
import type pg from 'pg';

export type Db = Knex;

/** The configuration the handle was made with (knex types its client loosely). */
function configOf(db: Db): Knex.Config {
  return (db.client as { config: Knex.Config }).config;
}

export function isPg(db: Db): boolean {
  return configOf(db).client === 'pg';
}

export function isSqlite(db: Db): boolean {
  return configOf(db).client === 'sqlite3';
}

/** The file a SQLite handle works on, as it was named when opened. */
export function sqliteFile(db: Db): string {
  return (configOf(db).connection as { filename: string }).filename;
}

/** Settings for a pg.Client of its own on the database of a PostgreSQL handle (knex may have parsed the URL). */
export function pgClientConfig(db: Db): pg.ClientConfig {
  const conn = configOf(db).connection as string | pg.ClientConfig;
  return typeof conn === 'string' ? { connectionString: conn } : { ...conn };
}

/** A unique-index violation (SQLite or PostgreSQL): someone else wrote the same thing first. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === '23505' || (e?.code === 'SQLITE_CONSTRAINT' && /UNIQUE/.test(String(e.message)));
}
