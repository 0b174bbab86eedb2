// Opens the database named by the configuration. Dialect differences live here and nowhere else.
import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import { conflict, isUniqueViolation } from '../errors.js';
import { attachSignalFile, signalChange, signalFileFor } from './change-signal.js';
import { isPg, notifyInTransaction, waitForAcks } from './pg-lease.js';

export type Db = Knex;

interface SqliteConnection {
  configure(option: 'busyTimeout', ms: number): void;
  exec(sql: string, done: (err: Error | null) => void): void;
}

/**
 * A warning when the SQLite file can be read or written by its group or by others (it holds
 * token hashes and the audit log), or null. New files are created with mode 0600; this catches
 * one copied, restored or created by hand. The CLI prints it on stderr and the daemon logs it,
 * each time they open the database.
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
  const arg = /^[A-Za-z0-9_./@:+-]+$/.test(file) ? file : `'${file.replace(/'/g, `'\\''`)}'`;
  return `warning: the database file ${file} has mode ${octal}: other users may read or change token hashes and the audit log; fix it with: chmod 600 ${arg} (and its -wal and -shm files)`;
}

export async function openDatabase(database: Config['database']): Promise<Db> {
  // knex is loaded on demand: `archivectl --help` and pure commands never pay for it.
  const { default: knex } = await import('knex');
  if (database.client === 'pg') {
    return knex({
      client: 'pg',
      connection: database.url,
      pool: { min: database.pool.min, max: database.pool.max },
      // Error messages without the SQL and its bound values (hashes among them).
      compileSqlOnError: false,
    });
  }
  const file = database.filename;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // The file holds token hashes and the audit log: readable by its owner only. SQLite gives
  // the -wal and -shm files the same mode as the database file.
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  const db = knex({
    client: 'sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    compileSqlOnError: false,
    // One connection per process: SQLite serialises writers anyway, and a single connection
    // means this process never contends with itself. Other processes (the CLI next to the
    // daemon) wait on the busy timeout instead of failing with SQLITE_BUSY.
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: SqliteConnection) => void) {
        conn.configure('busyTimeout', database.busyTimeoutMs);
        conn.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;', (err) => done(err, conn));
      },
    },
  });
  attachSignalFile(db, signalFileFor(file));
  return db;
}

export function isSqlite(db: Db): boolean {
  return db.client.config.client === 'sqlite3';
}

const changesAccess = new WeakSet<Knex.Transaction>();

/** Marks a transaction as changing who may do what; running daemons are told after it commits. */
export function markAccessChange(trx: Knex.Transaction): void {
  changesAccess.add(trx);
}

/**
 * A write transaction. On SQLite a transaction that reads first and writes later can fail at
 * once with SQLITE_BUSY when another process committed in between (the busy timeout does not
 * apply to that upgrade). Taking the write lock with the first statement makes SQLite wait on
 * the busy timeout instead; the no-op UPDATE does that on SQLite and costs nothing on PostgreSQL.
 */
export async function writeTransaction<T>(db: Db, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  let signal = false;
  let generation = '';
  const result = await db.transaction(async (trx): Promise<T> => {
    if (isSqlite(db)) await trx('auth_state').where('id', -1).update({ generation: 0 });
    const value = await work(trx);
    signal = changesAccess.has(trx);
    if (signal && isPg(db)) {
      const row = (await trx('auth_state').where('id', 1).first('generation')) as { generation: string | number };
      generation = String(row.generation);
      await notifyInTransaction(trx, generation);
    }
    return value;
  }).catch((err: unknown) => {
    // Checks run before the write; a unique index refusing it means another process wrote
    // the same name or id in between. Nothing was changed.
    if (isUniqueViolation(err)) throw conflict('a concurrent change conflicts with this one; nothing was changed, try again');
    throw err;
  });
  if (signal && isPg(db)) {
    // The change is committed; return only once every running daemon has adopted it, so that
    // "revoked" means refused by all of them from their next request.
    const unconfirmed = await waitForAcks(db, generation);
    if (unconfirmed > 0) {
      process.emitWarning(`${unconfirmed} daemon(s) did not confirm the change in time; their leases have lapsed, so they check the database on every request until they are back`);
    }
  } else if (signal) {
    await signalChange(db);
  }
  return result;
}
