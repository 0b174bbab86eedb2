// A small tmpfs the fault tests mount as a disk that fills up (root only; otherwise the tests
// that need one say why they are skipped).
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unlessCI } from '../helpers/system-tools.js';

/** Whether this process may mount a tmpfs: null, or the reason it cannot (also printed for `what`). */
export function tmpfsRefusal(what: string): string | null {
  const probe = mkdtempSync(path.join(os.tmpdir(), 'archivectl-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe]);
    return null;
  } catch (err) {
    // Under CI this fails the run instead of skipping (system-tools.ts).
    return unlessCI(
      `${what}: cannot mount a tmpfs here (${String((err as Error).message).split('\n')[0]}): needs root`,
    );
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/** Mounts a tmpfs of `size` (e.g. "2m") on the existing directory `dir`. */
export function mountTmpfs(dir: string, size: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
}

export function unmount(dir: string): void {
  execFileSync('umount', [dir]);
}

/** Fills the file system holding `dir` to the last byte; returns the filler's path. */
export function fill(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let size = chunk.length; size >= 1;) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch {
        size = Math.floor(size / 2); // ENOSPC: smaller pieces until not a byte fits
      }
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}
