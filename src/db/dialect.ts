// The database handle and the dialect it speaks. Every check of "SQLite or PostgreSQL?" and
// every dialect-specific error code is answered here, so nothing above src/db/ needs to ask.
import type { Knex } from 'knex';
import type pg from 'pg';

export type Db = Knex;

/** The configuration the handle was made with (knex types its client loosely). */
export const configOf = (db: Db): Knex.Config => (db.client as { config: Knex.Config }).config;

export const isPg = (db: Db): boolean => configOf(db).client === 'pg';

export const isSqlite = (db: Db): boolean => configOf(db).client === 'sqlite3';

/** knex's `log.warn` without its per-connection error lines: the caller reports the same error once. */
export function quietConnectionErrors(message: unknown): void {
  if (!/^(Connection Error|Acquire connection error):/.test(String(message))) process.emitWarning(String(message));
}

/** The file a SQLite handle works on, as it was named when opened. */
export const sqliteFile = (db: Db): string => (configOf(db).connection as { filename: string }).filename;

/** Settings for a pg.Client of its own on the database of a PostgreSQL handle (knex may have parsed the URL). */
export function pgClientConfig(db: Db): pg.ClientConfig {
  const conn = configOf(db).connection as string | pg.ClientConfig;
  return typeof conn === 'string' ? { connectionString: conn } : { ...conn };
}

/** PostgreSQL's SQLSTATE `pgState`, or SQLite's constraint error naming `sqliteKind`. */
function violates(err: unknown, pgState: string, sqliteKind: RegExp): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === pgState || (e?.code === 'SQLITE_CONSTRAINT' && sqliteKind.test(String(e.message)));
}

/** A unique-index violation (SQLite or PostgreSQL): someone else wrote the same thing first. */
export const isUniqueViolation = (err: unknown): boolean => violates(err, '23505', /UNIQUE/);

/** A foreign-key violation (SQLite or PostgreSQL): the row referred to is gone. */
export const isForeignKeyViolation = (err: unknown): boolean => violates(err, '23503', /FOREIGN KEY/);

// PostgreSQL error classes meaning "the server cannot serve this now": 08 connection exception,
// 53 insufficient resources, 57P01-57P05 shutdown, crash and idle-session termination
// (pg_terminate_backend is 57P01), 57014 query_canceled (statement_timeout).
const PG_UNAVAILABLE_STATES = /^(08...|53...|57P0[1-5]|57014)$/;
// What node-postgres, knex and the operating system say when the server is away or stalled.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
const UNAVAILABLE_MESSAGES = new RegExp(
  [
    'Connection terminated',
    'Connection ended unexpectedly',
    'timeout exceeded when trying to connect',
    'Query read timeout',
    'timeout expired', // connecting took longer than the connect timeout
    'not queryable',
  ].join('|'),
  'i',
);
// SQLite cannot commit: the disk or its quota is full, the file cannot be written, or another
// process held the write lock past the busy timeout.
const SQLITE_UNAVAILABLE = ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN'];

/** True when the database cannot serve right now (gone, stalled, full, locked), not because of what was asked. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; name?: unknown; message?: unknown; errno?: unknown };
  if (!e || typeof e !== 'object') return false;
  if (e.name === 'KnexTimeoutError') return true;
  const code = typeof e.code === 'string' ? e.code : '';
  if (PG_UNAVAILABLE_STATES.test(code) || UNAVAILABLE_CODES.has(code)) return true;
  // Extended codes (SQLITE_IOERR_WRITE…) start with their primary code.
  if (SQLITE_UNAVAILABLE.some((primary) => code.startsWith(primary))) return true;
  return typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message);
}
