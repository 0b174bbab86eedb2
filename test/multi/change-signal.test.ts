// The signal file through which the CLI tells daemons on a SQLite database that access changed
// (src/db/change-signal.ts): the daemon looks at it on every request with one stat, so what
// it must never do is take a replaced file for the one it read before.
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SignalWatch } from '../../src/db/change-signal.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'archivectl-signal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** As the CLI writes it: a new file renamed over the old one. */
function replace(file: string, content: string): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

const openFds = () => readdirSync('/proc/self/fd').length;

describe('the signal file', () => {
  it('reads as empty until it exists', () => {
    const watch = new SignalWatch(path.join(dir, 'absent'));
    expect(watch.read()).toBe('');
    expect(watch.read()).toBe('');
  });

  it('sees every replacement, even one of the same size and timestamps', () => {
    const file = path.join(dir, 'same-looking');
    replace(file, 'first-0000\n');
    const watch = new SignalWatch(file);
    expect(watch.read()).toBe('first-0000\n');
    const { atime, mtime } = statSync(file);
    replace(file, 'other-0001\n');
    utimesSync(file, atime, mtime);
    expect(watch.read()).toBe('other-0001\n');
    watch.release();
  });

  it('never takes a recycled inode for the file it read: 200 replacements in a row, each seen', () => {
    // Without the file last read held open, a filesystem may hand its inode number to the next
    // file written, and a stat would then see "the same file".
    const file = path.join(dir, 'churn');
    replace(file, 'start');
    const watch = new SignalWatch(file);
    expect(watch.read()).toBe('start');
    for (let i = 0; i < 200; i++) {
      replace(file, `change ${i}`);
      replace(file, `change ${i}b`);
      expect(watch.read()).toBe(`change ${i}b`);
    }
    watch.release();
  });

  it('holds one descriptor at most, and none once released', () => {
    const file = path.join(dir, 'fds');
    const before = openFds();
    const watch = new SignalWatch(file);
    for (let i = 0; i < 20; i++) {
      replace(file, `n ${i}`);
      watch.read();
    }
    expect(openFds()).toBe(before + 1);
    watch.release();
    expect(openFds()).toBe(before);
  });

  it('answers a value that never repeats when the file cannot be read, and lets go of the old one', () => {
    const file = path.join(dir, 'unreadable');
    replace(file, 'fine');
    const watch = new SignalWatch(file);
    const before = openFds();
    expect(watch.read()).toBe('fine');
    rmSync(file);
    mkdirSync(file); // a directory in its place: opened, it cannot be read as a file
    const a = watch.read();
    const b = watch.read();
    expect(a).toMatch(/^unreadable \d+$/);
    expect(b).not.toBe(a);
    expect(openFds()).toBeLessThanOrEqual(before);
  });
});
