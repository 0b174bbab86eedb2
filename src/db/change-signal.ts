// How a running daemon learns, without a database round trip per request, that the CLI changed
// something that can withdraw access (SQLite only; see ../domain/access-state.ts).
//
// After committing such a change, the CLI replaces a small file beside the database
// (`<database>-authgen`) with new content (write to a temporary name, then rename, so readers
// never see half a file). The daemon reads that file on each request (~5 µs, against ~120 µs
// for a query through the single SQLite connection) and goes to the database only when the
// content moved, or when a second has passed, which bounds the delay if a CLI process died
// between its commit and the file write.
import { randomUUID } from 'node:crypto';
import { readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import type { Db } from './connect.js';

const signalFiles = new WeakMap<Db, string>();

export function signalFileFor(databaseFile: string): string {
  let real = databaseFile;
  try {
    real = realpathSync(databaseFile); // the CLI and the daemon may name the file differently
  } catch {
    // not created yet: use the name as given
  }
  return `${real}-authgen`;
}

export function attachSignalFile(db: Db, file: string): void {
  signalFiles.set(db, file);
}

export function getSignalFile(db: Db): string | undefined {
  return signalFiles.get(db);
}

/** Tells daemons on this database to re-check; called after the change has committed. */
export function signalChange(db: Db): void {
  const file = signalFiles.get(db);
  if (!file) return; // PostgreSQL: daemons learn it from the database itself
  const tmp = `${file}.${process.pid}.${randomUUID()}`;
  try {
    writeFileSync(tmp, `${Date.now()} ${randomUUID()}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    // The change is committed either way; daemons will see it within a second.
    process.emitWarning(`could not signal running daemons (${(err as NodeJS.ErrnoException).code ?? 'error'}); they pick the change up within a second`);
  }
}

/** The file's current content ('' when absent). */
export function readSignal(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
