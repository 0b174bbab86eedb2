// SQLite: after a commit that changes access the CLI renames a new `<database>-authgen` file into place; the
// daemon stats it per request and reads the database when it moved, or once a second.
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import type { Db } from './dialect.js';
import { errorCode } from '../errors.js';

const signalFiles = new WeakMap<Db, string>();

/** Gives `db`, a handle on the SQLite file `databaseFile`, its signal file. */
export function attachSignalFile(db: Db, databaseFile: string): void {
  let real = databaseFile;
  try {
    real = realpathSync(databaseFile); // the CLI and the daemon may name the file differently
  } catch {
    // not created yet: use the name as given
  }
  signalFiles.set(db, `${real}-authgen`);
}

export const getSignalFile = (db: Db): string | undefined => signalFiles.get(db);

export const SIGNAL_RECHECK_MS = 1_000;

/** Called once the change has committed; if the file cannot be written, waits out the daemons' once-a-second check. */
export async function signalChange(db: Db): Promise<void> {
  const file = signalFiles.get(db);
  if (!file) return;
  const tmp = `${file}.${process.pid}.${randomUUID()}`;
  try {
    writeFileSync(tmp, `${Date.now()} ${randomUUID()}\n`, { mode: 0o644 });
    renameSync(tmp, file);
  } catch (err) {
    process.emitWarning(`could not signal running daemons (${errorCode(err)}); waiting for their periodic check`);
    await new Promise((resolve) => setTimeout(resolve, SIGNAL_RECHECK_MS + 100));
  }
}

let unreadable = 0;

/**
 * What a daemon sees of the signal file, with one stat per request: the file is only replaced by a rename, so
 * the inode kept open still holds what was read. Unreadable: a value that never repeats (read the database).
 */
export class SignalWatch {
  private held: { fd: number; dev: number; ino: number; content: string } | null = null;

  constructor(private readonly file: string) {}

  read(): string {
    let now;
    try {
      now = statSync(this.file, { throwIfNoEntry: false });
    } catch {
      return this.lost();
    }
    if (now === undefined) {
      this.release();
      return '';
    }
    if (this.held !== null && now.ino === this.held.ino && now.dev === this.held.dev) return this.held.content;
    let fd;
    try {
      fd = openSync(this.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return this.lost();
      this.release(); // removed between the stat and the open
      return '';
    }
    try {
      // The identity of what was opened (the path may have moved on since the stat).
      const opened = fstatSync(fd);
      const content = readFileSync(fd, 'utf8');
      this.release();
      this.held = { fd, dev: opened.dev, ino: opened.ino, content };
      return content;
    } catch {
      closeSync(fd);
      return this.lost();
    }
  }

  release(): void {
    if (this.held !== null) closeSync(this.held.fd);
    this.held = null;
  }

  private lost(): string {
    this.release();
    return `unreadable ${++unreadable}`;
  }
}
