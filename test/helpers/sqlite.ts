// Direct read access to a sandbox's SQLite file from the test process, for what the API does not
// show: row counts, `PRAGMA integrity_check`. A connection kept open also keeps the -wal file on
// disk (the last connection to close checkpoints and removes it).
import sqlite3 from 'sqlite3';

export interface SqliteReader {
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export function openSqlite(file: string, mode: 'readonly' | 'readwrite' = 'readonly'): Promise<SqliteReader> {
  const flags = mode === 'readonly' ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE;
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, flags, (err) => {
      if (err) {
        reject(err);
        return;
      }
      db.configure('busyTimeout', 10_000);
      resolve({
        all: <T>(sql: string, params: unknown[] = []) =>
          new Promise<T[]>((done, fail) => db.all(sql, params, (e, rows) => (e ? fail(e) : done(rows as T[])))),
        close: () => new Promise<void>((done, fail) => db.close((e) => (e ? fail(e) : done()))),
      });
    });
  });
}

/** One-shot query on a fresh read-only connection. */
export async function querySqlite<T = Record<string, unknown>>(
  file: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const db = await openSqlite(file);
  try {
    return await db.all<T>(sql, params);
  } finally {
    await db.close();
  }
}
