// A daemon started in this process with startDaemon (src/http/server.ts) rather than through
// the CLI: its counters, its server and its sockets can be looked at. Its log is dropped.
import { writeFile } from 'node:fs/promises';
import type net from 'node:net';
import path from 'node:path';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startDaemon, type Daemon } from '../../src/http/server.js';
import { asAdministrator, createAccounts, createSandbox, createToken, type Sandbox } from './cli.js';
import { patchConfig, type Json } from './config.js';

const silent = { write: () => true } as unknown as NodeJS.WritableStream;

/** A daemon on the sandbox's configuration with `patch` merged into it, on 127.0.0.1. */
export async function inProcessDaemon(box: Sandbox, patch: Json = {}): Promise<Daemon> {
  await patchConfig(box, patch);
  const config = loadConfig(box.configFile, { ...process.env, ...box.env });
  return startDaemon(config, { host: '127.0.0.1', port: 0, logDestination: silent });
}

/** Loads `count` actors with a comment of about a kilobyte each (an export of about 1.2 KB an actor). */
export async function loadLongActors(
  box: Sandbox,
  count: number,
  more: (i: number) => Record<string, unknown> = () => ({}),
): Promise<void> {
  const comment = 'A comment of some length, as archivists write them. '.repeat(20);
  const file = path.join(box.dir, 'actors.json');
  const actors = Array.from({ length: count }, (_, i) => ({ name: `Actor ${i}`, comment, ...more(i) }));
  await writeFile(file, JSON.stringify({ actors }));
  expect((await box.run(['catalog', 'load', file])).code).toBe(0);
}

/** A sandbox with the accounts `root` (superuser) and `reader` (user), the reader's token, and `more` accounts. */
export async function sandboxWithReader(more: Record<string, string> = {}): Promise<{ box: Sandbox; token: string }> {
  const box = await createSandbox();
  await createAccounts(box, { root: 'superuser', reader: 'user', ...more });
  return { box, token: (await createToken(box, 'reader', 'legit', 'root')).token };
}

/** An in-process daemon with public_access on; the daemon's side of every connection it accepts is pushed to `sockets`. */
export async function openDaemonWatched(box: Sandbox, patch: Json, sockets: net.Socket[]): Promise<Daemon> {
  expect((await box.run(['settings', 'set', 'public_access', 'on', ...(await asAdministrator(box))])).code).toBe(0);
  const daemon = await inProcessDaemon(box, patch);
  daemon.server.on('connection', (s: net.Socket) => sockets.push(s));
  return daemon;
}

/** Destroys the test's client sockets, then closes the daemon and the sandbox (either may be missing). */
export async function closeWatched(clients: net.Socket[], daemon?: Daemon, box?: Sandbox): Promise<void> {
  for (const s of clients) s.destroy();
  await daemon?.close();
  await box?.cleanup();
}
