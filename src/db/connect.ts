// Opens the database named by the configuration, with the settings each dialect needs.
import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Database } from 'sqlite3';
import type { Config } from '../config.js';
import { shellWord } from '../config/file-trust.js';
import { attachSignalFile } from './change-signal.js';
import { configOf, isPg, type Db } from './dialect.js';
import { pgKnexConfig, type DatabaseUse } from './pg-config.js';
import { LIVE_SINCE } from './pg-lease.js';

/**
 * A warning when its group or others may read or write the SQLite file (it holds token hashes and
 * the audit log), or null. New files get mode 0600: this catches copies, restores, hand-made files.
 */
export function databaseFileWarning(config: Pick<Config, 'database'>): string | null {
  if (config.database.client !== 'sqlite3') return null;
  const file = config.database.filename;
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return null; // not there yet: it will be created with mode 0600
  }
  if ((mode & 0o077) === 0) return null;
  const octal = mode.toString(8).padStart(4, '0');
  return (
    `the database file ${file} has mode ${octal}: other users may read or change token hashes ` +
    `and the audit log; fix it with: chmod 600 ${shellWord(file)} (and its -wal and -shm files)`
  );
}

/** Where the database is, for messages: the SQLite file, or the PostgreSQL URL without its password. */
export function databaseLocation(database: Config['database']): string {
  if (database.client === 'sqlite3') return database.filename;
  try {
    const url = new URL(database.url);
    if (url.password) url.password = '***';
    url.searchParams.delete('password');
    return url.toString();
  } catch {
    return 'the configured PostgreSQL database';
  }
}

/**
 * False when the configured SQLite file does not exist: opening it would create an empty database,
 * which only `migrate` and `serve` may do. (A PostgreSQL server is always there: see hasSchema.)
 */
export function databaseFileExists(database: Config['database']): boolean {
  return database.client !== 'sqlite3' || existsSync(database.filename);
}

/** True when migrations have ever run here (knex's bookkeeping table exists). */
export async function hasSchema(db: Db): Promise<boolean> {
  return db.schema.hasTable('knex_migrations');
}

/** PostgreSQL: daemons live by their heartbeat (./pg-lease.ts) and stale rows; null on SQLite. */
export async function daemonHeartbeats(db: Db): Promise<{ live: number; stale: number } | null> {
  if (!isPg(db) || !(await db.schema.hasTable('daemons'))) return null;
  const rows = await db('daemons').select<{ live: string | number; total: string | number }[]>(
    db.raw(`count(*) filter (where seen_ms > ${LIVE_SINCE}) as live`),
    db.raw('count(*) as total'),
  );
  const live = Number(rows[0]?.live ?? 0);
  return { live, stale: Number(rows[0]?.total ?? 0) - live };
}

/** A handle on the configured database; `use` says whose statements it runs (pg-config.ts). */
export async function openDatabase(database: Config['database'], use: DatabaseUse = 'command'): Promise<Db> {
  // knex is loaded on demand: `archivectl --help` and pure commands never pay for it.
  const { default: knex } = await import('knex');
  if (database.client === 'pg') return knex(pgKnexConfig(database, use));
  const file = database.filename;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Readable by its owner only (see databaseFileWarning); SQLite gives -wal and -shm the same mode.
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  const db = knex({
    client: 'sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    compileSqlOnError: false,
    // One connection per process: SQLite serialises writers anyway, and this process never contends
    // with itself; others (the CLI next to the daemon) wait on the busy timeout, not SQLITE_BUSY.
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: Database, done: (err: Error | null, conn: Database) => void) {
        conn.configure('busyTimeout', database.busyTimeoutMs);
        conn.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;', (err) => done(err, conn));
      },
    },
  });
  attachSignalFile(db, file);
  return db;
}

/**
 * Runs `work` on a `command` handle (no statement time limit) to the database of `db`, as the
 * daemon's start-up migrations may index a million rows. SQLite bounds no statement: `db` itself.
 */
export async function withoutStatementLimit<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  if (!isPg(db)) return work(db);
  const { default: knex } = await import('knex');
  const config = configOf(db);
  const { statement_timeout: _s, query_timeout: _q, ...connection } = config.connection as Knex.PgConnectionConfig;
  const unlimited = knex({ ...config, connection, pool: { ...config.pool, min: 0, max: 1 } });
  try {
    return await work(unlimited);
  } finally {
    await unlimited.destroy();
  }
}
