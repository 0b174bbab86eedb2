// A consistent copy of a live SQLite database (PostgreSQL has pg_dump). Copying the file while a
// daemon writes would miss what is still in the -wal file or catch a half-written page; `VACUUM
// INTO` writes a snapshot of one read transaction into a fresh file while others read and write.
import { closeSync, existsSync, openSync, rmSync, statSync } from 'node:fs';
import { conflict } from '../errors.js';
import { isSqlite, type Db } from './dialect.js';

/** Writes the snapshot to `target` (created with mode 0600); returns its size in bytes. */
export async function backupSqlite(db: Db, target: string, opts: { force: boolean }): Promise<number> {
  if (!isSqlite(db)) throw conflict('not a SQLite database');
  if (existsSync(target)) {
    if (!opts.force) throw conflict(`${target} exists; give --force to replace it`);
    rmSync(target);
  }
  // VACUUM INTO needs a missing or empty file; an empty one made here first carries the mode
  // (the copy holds token hashes and the audit log). 'wx' refuses a file that appeared meanwhile.
  closeSync(openSync(target, 'wx', 0o600));
  try {
    await db.raw('VACUUM INTO ?', [target]);
  } catch (err) {
    rmSync(target, { force: true });
    throw err;
  }
  return statSync(target).size;
}
