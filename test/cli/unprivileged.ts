// Runs the built binary as a user without root's powers, for what root never meets (root reads
// and writes any file whatever its mode): as the test user itself when that is not root, else
// as `nobody` through setpriv (util-linux). The files such a run uses must be that user's:
// `own(dir)` hands them over.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chown, readdir } from 'node:fs/promises';
import path from 'node:path';
import { BIN, childEnv, type CliResult } from '../helpers/cli.js';
import { systemTool } from '../helpers/system-tools.js';

const isRoot = process.getuid?.() === 0;
const setpriv = isRoot ? systemTool('setpriv', 'util-linux') : null;

/** uid and gid of the user `nobody`, from the user database. */
function nobody(): { uid: number; gid: number } | null {
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('nobody:'));
  const [, , uid, gid] = entry?.split(':') ?? [];
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : null;
}

const user = isRoot ? nobody() : { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1 };

/** Why unprivileged runs cannot be made here, or null. */
export const unprivilegedSkip: string | null =
  process.getuid === undefined
    ? 'no Unix users on this system'
    : (setpriv?.skip ?? (user ? null : 'there is no user "nobody" to run as'));

/** Gives `dir` and everything in it to the unprivileged user (nothing to do when that is the test user). */
export async function own(dir: string): Promise<void> {
  if (!isRoot || !user) return;
  await chown(dir, user.uid, user.gid);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    await chown(path.join(entry.parentPath, entry.name), user.uid, user.gid);
  }
}

/** `archivectl <args>` as the unprivileged user, in `cwd`, stdin empty. */
export function runUnprivileged(args: string[], cwd: string): Promise<CliResult> {
  const node = [process.execPath, BIN, ...args];
  const [command, ...argv] =
    isRoot && user
      ? [
          setpriv?.path ?? 'setpriv',
          `--reuid=${user.uid}`,
          `--regid=${user.gid}`,
          '--clear-groups',
          '--reset-env',
          ...node,
        ]
      : node;
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, argv, {
      cwd,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
