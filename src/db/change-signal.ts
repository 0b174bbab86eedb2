// How a running daemon learns, without a database round trip per request, that the CLI changed
// something that can withdraw access (SQLite only; read by ./access-watch.ts). After committing
// such a change, the CLI replaces a small file beside the database, `<database>-authgen` (written
// under a temporary name, then renamed, so readers never see half a file). The daemon looks at it
// on each request (one stat, against ~120 µs for a query through the single SQLite connection)
// and reads the database only when it moved, or when a second has passed: that bounds the delay
// if a CLI process died between its commit and the file write.
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
    process.emitWarning(`could not signal running daemons (${errorCode(err)}); waiting for their periodic check`);
    await new Promise((resolve) => setTimeout(resolve, SIGNAL_RECHECK_MS + 100));
  }
}

let unreadable = 0;

/**
 * What a daemon sees of the signal file: its content ('' when absent); when it exists but cannot
 * be read, a value that never repeats, so the daemon checks the database on every request rather
 * than trust a signal it cannot see.
 *
 * Asked on every request, so it costs one stat: the CLI never writes the file in place but renames
 * a new one over it, so a file with the inode last read still holds what was read. That file is
 * kept open, which keeps its inode allocated: "same inode" cannot be a recycled number. (Sizes
 * and timestamps could miss two changes within one tick of a coarse filesystem clock.) Reading
 * the whole file each time cost 3.6 % of a busy daemon's time.
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
    const held = this.held;
    if (held !== null && now.ino === held.ino && now.dev === held.dev) return held.content;
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

  /** Lets go of the file last read. */
  release(): void {
    if (this.held !== null) closeSync(this.held.fd);
    this.held = null;
  }

  private lost(): string {
    this.release();
    return `unreadable ${++unreadable}`;
  }
}
