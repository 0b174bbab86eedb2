// SQLite list reads on read-only connections of their own, statements prepared once per connection
// (docs/catalogue-scale.md, "The read path"); PostgreSQL and transactions read through knex.
import os from 'node:os';
import { LRUCache } from 'lru-cache';
import type { Database, Statement } from 'sqlite3';
import { Pool } from 'tarn';
import { isSqlite, sqliteFile, type Db } from './dialect.js';

/** Readers per database: one per core, at most one per libuv thread (more would only queue there). */
const READERS = Math.max(
  1,
  Math.min(os.availableParallelism(), Number.parseInt(process.env.UV_THREADPOOL_SIZE ?? '', 10) || 4),
);
/** Prepared statements kept per connection (the list shapes in use are a few dozen). */
const STATEMENTS_PER_READER = 256;
// A WAL reader waits only while a checkpoint resets the log or another process recovers the database.
const BUSY_TIMEOUT_MS = 5_000;

type Row = Record<string, unknown>;

/** A prepared statement and the values last bound to it (null: unknown, bind again). */
interface Prepared {
  stmt: Statement;
  /** Settles once SQLite has prepared it: sqlite3 never calls back a run of a failed prepare. */
  ready: Promise<void>;
  bound: readonly unknown[] | null;
}

interface Reader {
  conn: Database;
  statements: LRUCache<string, Prepared>;
}

/** Runs read-only SQL (with `?` placeholders) on prepared statements; see the file's head. */
export interface PreparedReads {
  all(sql: string, bindings: readonly unknown[]): Promise<Row[]>;
}

interface Readers extends PreparedReads {
  close(): Promise<void>;
}

const readersOf = new WeakMap<Db, Readers>();

/** The prepared read path of `db`, or null where reads go through knex. */
export function preparedReads(db: Db): PreparedReads | null {
  if (!isSqlite(db) || db.isTransaction === true) return null;
  const known = readersOf.get(db);
  if (known) return known;
  const file = sqliteFile(db);
  if (!file || file === ':memory:') return null;
  const readers = openReaders(file);
  readersOf.set(db, readers);
  return readers;
}

/** Closes the read connections of `db`, if it has any; call before `db.destroy()`. */
export async function closePreparedReads(db: Db): Promise<void> {
  const readers = readersOf.get(db);
  readersOf.delete(db);
  await readers?.close();
}

function openReaders(file: string): Readers {
  const pool = readerPool(file);
  let closed = false;
  return {
    async all(sql, bindings) {
      if (closed) throw new Error('the database handle is closed');
      const reader = await pool.acquire().promise;
      try {
        const prepared = statementOf(reader, sql);
        await prepared.ready;
        return await run(prepared, bindings);
      } finally {
        pool.release(reader);
      }
    },
    async close() {
      closed = true;
      await pool.destroy();
    },
  };
}

function readerPool(file: string): Pool<Reader> {
  return new Pool<Reader>({
    min: 0,
    max: READERS,
    // A connection that fails to open fails the query waiting for it; the next query tries again.
    propagateCreateError: true,
    async create() {
      const { default: sqlite3 } = await import('sqlite3');
      const conn = await new Promise<Database>((resolve, reject) => {
        const c: Database = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) =>
          err ? reject(err) : resolve(c),
        );
      });
      conn.configure('busyTimeout', BUSY_TIMEOUT_MS);
      await new Promise<void>((resolve, reject) =>
        conn.exec('PRAGMA query_only = ON', (err) => (err ? reject(err) : resolve())),
      );
      const statements = new LRUCache<string, Prepared>({
        max: STATEMENTS_PER_READER,
        dispose: (prepared) => prepared.stmt.finalize(),
      });
      return { conn, statements };
    },
    destroy: ({ conn, statements }) =>
      new Promise<void>((resolve) => {
        statements.clear();
        conn.close(() => resolve());
      }),
  });
}

function statementOf(reader: Reader, sql: string): Prepared {
  const known = reader.statements.get(sql);
  if (known) return known;
  // A failed prepare (SQL the schema does not match) is answered to the query, and not kept.
  let stmt!: Statement;
  const ready = new Promise<void>((resolve, reject) => {
    stmt = reader.conn.prepare(sql, (err) => {
      if (!err) return resolve();
      reader.statements.delete(sql);
      reject(err);
    });
  });
  const prepared: Prepared = { stmt, ready, bound: null };
  reader.statements.set(sql, prepared);
  return prepared;
}

const sameValues = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

/** Values equal to those bound last are not bound again: a bind makes SQLite prepare the statement afresh. */
function run(prepared: Prepared, bindings: readonly unknown[]): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, rows: Row[]) => {
      if (!err) return resolve(rows);
      prepared.bound = null; // a failed run may have left other values bound
      reject(err);
    };
    if (prepared.bound !== null && sameValues(prepared.bound, bindings)) {
      prepared.stmt.all(done);
    } else {
      prepared.bound = [...bindings];
      prepared.stmt.all([...bindings], done);
    }
  });
}
