// How a running daemon learns, without a database round trip per request, that the CLI changed
// something that can withdraw access (SQLite only; read by ./access-watch.ts).
//
// After committing such a change, the CLI replaces a small file beside the database
// (`<database>-authgen`) with new content (write to a temporary name, then rename, so readers
// never see half a file). The daemon reads that file on each request (~5 µs, against ~120 µs
// for a query through the single SQLite connection) and goes to the database only when the
// content moved, or when a second has passed, which bounds the delay if a CLI process died
// between its commit and the file write.
import { randomUUID } from 'node:crypto';
import { readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import type { Db } from './dialect.js';

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

/** How often a daemon checks the database even when the signal file did not move. */
export const SIGNAL_RECHECK_MS = 1_000;

/**
 * Tells daemons on this database to re-check; called after the change has committed. The
 * content is a random nonce, readable by all (0644): the daemon may run as another user than
 * the CLI. When the file cannot be written, waiting out the daemons' once-a-second check keeps
 * the promise that the change counts once the command has returned.
 */
export async function signalChange(db: Db): Promise<void> {
  const file = signalFiles.get(db);
  if (!file) return;
  const tmp = `${file}.${process.pid}.${randomUUID()}`;
  try {
    writeFileSync(tmp, `${Date.now()} ${randomUUID()}\n`, { mode: 0o644 });
    renameSync(tmp, file);
  } catch (err) {
    process.emitWarning(
      `could not signal running daemons (${(err as NodeJS.ErrnoException).code ?? 'error'}); ` +
        'waiting for their periodic check',
    );
    await new Promise((resolve) => setTimeout(resolve, SIGNAL_RECHECK_MS + 100));
  }
}

let unreadable = 0;

/**
 * The file's current content ('' when absent). When it exists but cannot be read, a value
 * that never repeats: the daemon then checks the database on every request rather than trust
 * a signal it cannot see.
 */
export function readSignal(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? '' : `unreadable ${++unreadable}`;
  }
}
