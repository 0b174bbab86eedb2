// SQLite's hot read path (docs/catalogue-scale.md, "The read path"): the catalogue lists run their
// SQL as statements prepared once, on read-only (query_only) connections of their own, opened on
// first use and closed with the knex handle. In WAL mode they answer what knex's one connection
// would, without its pool acquire and fresh prepare in series with every other query (a quarter of
// the daemon's time in a profile of GET /api/actors under load). PostgreSQL, a SQLite handle on no
// file and a transaction (other connections do not see its writes before it commits) use knex.
import os from 'node:os';
import type { Database, Statement } from 'sqlite3';
import { isSqlite, sqliteFile, type Db } from './dialect.js';

/**
 * Readers per database: one per core, at most one per thread of libuv's pool (4 unless
 * UV_THREADPOOL_SIZE says otherwise), which runs each query. A connection runs one statement at a
 * time, so readers beyond the cores or the pool's threads only queue there: with the daemon
 * pinned to one CPU, one reader served as many requests as two (bench/RESULTS.md).
 */
const READERS = Math.max(
  1,
  Math.min(os.availableParallelism(), Number.parseInt(process.env.UV_THREADPOOL_SIZE ?? '', 10) || 4),
);
/** Prepared statements kept per connection (the list shapes in use are a few dozen). */
const STATEMENTS_PER_READER = 256;
// A WAL reader waits only while a checkpoint resets the log or another process recovers the
// database; the knex connection's own timeout is not reachable from here, this bounds the wait.
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
  ready: Promise<Database>;
  statements: Map<string, Prepared>;
  /** Queries handed to this connection and not yet answered. */
  busy: number;
}

/** Runs read-only SQL (with `?` placeholders) on prepared statements; see the file's head. */
export interface PreparedReads {
  all(sql: string, bindings: readonly unknown[]): Promise<Row[]>;
}

const readersOf = new WeakMap<Db, PreparedReads>();

/** The prepared read path of `db`, or null where reads go through knex. */
export function preparedReads(db: Db): PreparedReads | null {
  if (!isSqlite(db) || db.isTransaction === true) return null;
  const known = readersOf.get(db);
  if (known) return known;
  const file = sqliteFile(db);
  if (!file || file === ':memory:') return null;
  const reads = openReaders(db, file);
  readersOf.set(db, reads);
  return reads;
}

function openReaders(db: Db, file: string): PreparedReads {
  const readers: Reader[] = [];
  const open = async (): Promise<Database> => {
    const { default: sqlite3 } = await import('sqlite3');
    const conn = await new Promise<Database>((resolve, reject) => {
      const c: Database = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(c)));
    });
    conn.configure('busyTimeout', BUSY_TIMEOUT_MS);
    await new Promise<void>((resolve, reject) =>
      conn.exec('PRAGMA query_only = ON', (err) => (err ? reject(err) : resolve())),
    );
    return conn;
  };
  const reader = (): Reader => {
    // The least busy connection; a new one while there are fewer than READERS and all are busy.
    let best: Reader | undefined;
    for (const r of readers) if (!best || r.busy < best.busy) best = r;
    if (best && (best.busy === 0 || readers.length >= READERS)) return best;
    const created: Reader = { ready: open(), statements: new Map(), busy: 0 };
    // A connection that failed to open is dropped: the next query tries a new one.
    created.ready.catch(() => {
      const at = readers.indexOf(created);
      if (at >= 0) readers.splice(at, 1);
    });
    readers.push(created);
    return created;
  };
  closeWithKnex(db, async () => {
    readersOf.delete(db);
    await Promise.all(readers.splice(0).map((r) => r.ready.then(closeReader(r), () => undefined)));
  });
  return {
    async all(sql, bindings) {
      // What knex tells its listeners of each query (debugging, tests of the plans) holds for these too.
      if (db.listenerCount('query') > 0) db.emit('query', { method: 'select', sql, bindings: [...bindings] });
      const r = reader();
      r.busy++;
      try {
        const conn = await r.ready;
        const prepared = statementOf(conn, r, sql);
        await prepared.ready;
        return await run(prepared, bindings);
      } finally {
        r.busy--;
      }
    },
  };
}

function statementOf(conn: Database, r: Reader, sql: string): Prepared {
  const known = r.statements.get(sql);
  if (known) {
    r.statements.delete(sql); // kept in the order of last use: the oldest is the one dropped
    r.statements.set(sql, known);
    return known;
  }
  // A failed prepare (SQL the schema does not match) is answered to every query waiting on it,
  // and not kept: the next query prepares again.
  let stmt!: Statement;
  const ready = new Promise<void>((resolve, reject) => {
    stmt = conn.prepare(sql, (err) => {
      if (!err) return resolve();
      if (r.statements.get(sql) === prepared) r.statements.delete(sql);
      reject(err);
    });
  });
  const prepared: Prepared = { stmt, ready, bound: null };
  r.statements.set(sql, prepared);
  if (r.statements.size > STATEMENTS_PER_READER) {
    const [oldest, old] = r.statements.entries().next().value as [string, Prepared];
    r.statements.delete(oldest);
    old.stmt.finalize();
  }
  return prepared;
}

const sameValues = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

/**
 * Values equal to the ones bound last are not bound again: SQLite lets a LIMIT value shape the
 * plan, so a bind means a fresh prepare at the next step (sqlite3Reprepare, about 10 µs a run). A
 * statement's runs are queued in call order: a run meets the values bound last when it is queued.
 */
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

const closeReader = (r: Reader) => (conn: Database) =>
  new Promise<void>((resolve) => {
    for (const { stmt } of r.statements.values()) stmt.finalize();
    r.statements.clear();
    conn.close(() => resolve());
  });

/** Runs `close` before the knex handle's own destroy (the daemon's shutdown, a test's end). */
function closeWithKnex(db: Db, close: () => Promise<void>): void {
  const client = db.client as { destroy: (callback?: unknown) => Promise<void> };
  const destroy = client.destroy;
  client.destroy = async function destroyWithReaders(this: unknown, callback?: unknown) {
    client.destroy = destroy;
    await close();
    return destroy.call(this, callback);
  };
}
