// Opens the database named by the configuration, with the settings each dialect needs.
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Database } from 'sqlite3';
import type { Config } from '../config.js';
import { shellWord, trustedPath, untrustedOwnerAndMode } from '../config/file-trust.js';
import { configError } from '../errors.js';
import { attachSignalFile } from './change-signal.js';
import { configOf, isPg, quietConnectionErrors, type Db } from './dialect.js';
import { pgKnexConfig, type DatabaseUse } from './pg-config.js';
import { LIVE_SINCE } from './pg-lease.js';
import { closePreparedReads } from './prepared-reads.js';

/** A warning when others may read or write the SQLite file (token hashes, audit log), or null. */
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
  const pinned = pinDatabaseFile(file);
  const db = knex({
    client: 'sqlite3',
    connection: { filename: pinned.path },
    useNullAsDefault: true,
    compileSqlOnError: false,
    log: { warn: quietConnectionErrors },
    // One connection per process: SQLite serialises writers anyway, and this process never contends
    // with itself; others (the CLI next to the daemon) wait on the busy timeout, not SQLITE_BUSY.
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: Database, done: (err: Error | null, conn: Database) => void) {
        const swapped = replacedSince(pinned, file);
        if (swapped) {
          done(swapped, conn);
          return;
        }
        conn.configure('busyTimeout', database.busyTimeoutMs);
        conn.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;', (err) => done(err, conn));
      },
    },
  });
  attachSignalFile(db, file);
  return db;
}

/** Closes a handle of openDatabase: its list readers (prepared-reads.ts), then knex's pool. */
export async function closeDatabase(db: Db): Promise<void> {
  await closePreparedReads(db);
  await db.destroy();
}

/** The SQLite file as judged before SQLite opens it: the path handed to SQLite, and its identity. */
interface PinnedFile {
  path: string;
  dev: number;
  ino: number;
}

/**
 * Opens the SQLite file ourselves (created 0600 if absent) without following a link, and judges what is open;
 * replacedSince then checks the name still leads to it once SQLite has opened it by name.
 */
function pinDatabaseFile(file: string): PinnedFile {
  const named = trustedPath(file, 'database file');
  if (named.problem) throw configError(named.problem);
  const target = named.path ?? path.resolve(file);
  let fd: number;
  try {
    // Readable by its owner only (see databaseFileWarning); SQLite gives -wal and -shm the same mode.
    fd = openSync(target, constants.O_RDONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ELOOP')
      throw configError(`the database file ${file} was replaced by a symbolic link as it was opened`);
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw configError(`the database file ${file} is not a regular file`);
    const problem = untrustedOwnerAndMode(st, file, 'database file');
    if (problem) throw configError(problem);
    return { path: target, dev: st.dev, ino: st.ino };
  } finally {
    closeSync(fd);
  }
}

/** An error when the pinned name now leads to another file than the one judged, else null. */
function replacedSince(pinned: PinnedFile, file: string): Error | null {
  let st: { dev: number; ino: number; isFile(): boolean };
  try {
    st = lstatSync(pinned.path);
  } catch {
    st = { dev: -1, ino: -1, isFile: () => false };
  }
  if (st.isFile() && st.dev === pinned.dev && st.ino === pinned.ino) return null;
  return configError(`the database file ${file} was replaced while it was opened: nothing was read from it`);
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
