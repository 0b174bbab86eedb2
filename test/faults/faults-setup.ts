// What the PostgreSQL fault tests share: a sandbox whose daemons use short database timeouts,
// accounts with tokens, and two daemons started with a given DATABASE_URL.
import { writeFile } from 'node:fs/promises';
import { expect } from 'vitest';
import {
  createAccounts,
  createSandbox,
  createToken,
  pgAdmin,
  withSandboxDb,
  type CreatedTokenJson,
  type Sandbox,
} from '../helpers/cli.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { Load } from './load.js';

/** Short enough for a test to see them at work, long enough for a loaded 2-core machine. */
export const TEST_TIMEOUTS = { statementTimeoutMs: 3_000, acquireTimeoutMs: 3_000, connectTimeoutMs: 2_000 };

export async function writeFaultConfig(box: Sandbox, database: Record<string, unknown> = {}): Promise<void> {
  await writeFile(
    box.configFile,
    `${JSON.stringify(
      { database: { filename: './archive.sqlite3', ...TEST_TIMEOUTS, ...database }, dataDir: './data' },
      null,
      2,
    )}\n`,
  );
}

export interface Staff {
  reader: string;
  editor: string;
  /** Tokens of the reader account to revoke during the test. */
  victims: CreatedTokenJson[];
}

export async function staffTokens(box: Sandbox, victims: number): Promise<Staff> {
  await createAccounts(box, { root: 'superuser', reader: 'user', writer: 'editor' });
  const reader = (await createToken(box, 'reader', 'load reads', 'root')).token;
  const editor = (await createToken(box, 'writer', 'load writes', 'root')).token;
  const list: CreatedTokenJson[] = [];
  for (let i = 0; i < victims; i++) list.push(await createToken(box, 'reader', `victim ${i}`, 'root'));
  return { reader, editor, victims: list };
}

/** A sandbox configured with TEST_TIMEOUTS (and `database`), its staff and `victims` tokens. */
export async function faultSandbox(
  victims: number,
  database: Record<string, unknown> = {},
): Promise<{ box: Sandbox; staff: Staff }> {
  const box = await createSandbox();
  await writeFaultConfig(box, database);
  return { box, staff: await staffTokens(box, victims) };
}

/** A faultSandbox with `count` daemons started on it. */
export async function faultScene(
  victims: number,
  count: number,
): Promise<{ box: Sandbox; staff: Staff; daemons: RunningDaemon[] }> {
  const { box, staff } = await faultSandbox(victims);
  return { box, staff, daemons: await startDaemons(box, count) };
}

/** Stops the daemons one after another, then removes the sandbox. */
export async function stopAll(daemons: RunningDaemon[], box: Sandbox | undefined): Promise<void> {
  for (const d of daemons) await d.stop();
  await box?.cleanup();
}

export async function startDaemons(box: Sandbox, count: number, env: Record<string, string> = {}) {
  const daemons: RunningDaemon[] = [];
  for (let i = 0; i < count; i++) daemons.push(await startDaemon(box, { env }));
  return daemons;
}

/** The sandbox's PostgreSQL database name. */
export const databaseOf = (box: Sandbox): string => new URL(box.env.DATABASE_URL ?? '').pathname.slice(1);

/** Ends the sessions of the sandbox's database whose application_name is (or is not) `archivectl-listen`. */
export async function terminate(box: Sandbox, which: 'pool' | 'listen' | 'all'): Promise<void> {
  const filter =
    which === 'pool'
      ? "and application_name <> 'archivectl-listen'"
      : which === 'listen'
        ? "and application_name = 'archivectl-listen'"
        : '';
  await pgAdmin(
    `select pg_terminate_backend(pid) from pg_stat_activity ` +
      `where datname = '${databaseOf(box)}' and pid <> pg_backend_pid() ${filter}`,
  );
}

/** A revoked token's request answers 401 on every daemon (proof that the revocation holds). */
export async function expectRefused(daemons: RunningDaemon[], token: string): Promise<void> {
  for (const d of daemons) {
    const r = await d.fetch('/api/actors', { headers: { Authorization: `Bearer ${token}` } });
    await r.arrayBuffer();
    expect([401, 503]).toContain(r.status);
  }
}

/** True when every daemon is ready with its notifications heard. */
export async function allReady(daemons: RunningDaemon[]): Promise<boolean> {
  for (const d of daemons) {
    const r = await d.fetch('/readyz');
    const body = (await r.json()) as { checks?: { notifications?: string } };
    if (r.status !== 200 || body.checks?.notifications !== 'up') return false;
  }
  return true;
}

/**
 * Load from both daemons, started once every victim token has been served by every daemon (so
 * that each holds it verified in its cache before its revocation).
 */
export async function startLoad(daemons: RunningDaemon[], staff: Staff): Promise<Load> {
  for (const victim of staff.victims)
    for (const d of daemons) {
      const r = await d.fetch('/api/actors', { headers: { Authorization: `Bearer ${victim.token}` } });
      expect(r.status).toBe(200);
    }
  const load = new Load({
    targets: () => daemons.map((d) => d.url),
    readToken: staff.reader,
    writeToken: staff.editor,
  });
  load.start();
  return load;
}

/**
 * Stops the load and checks what every fault must leave intact: no revoked token accepted, every
 * request answered with a known status (503s with Retry-After), every acknowledged write in the
 * database. Prints the figures under `label`.
 */
export async function expectLoadHeld(load: Load, box: Sandbox, label: string, figures: object): Promise<void> {
  await load.stop();
  const acknowledged = load.acknowledged();
  const found = await withSandboxDb(box, (db) => db('actors').whereIn('name', acknowledged).pluck('name'));
  console.log(
    `faults: ${label} ${JSON.stringify({ ...load.summary(), writesFound: new Set(found).size, ...figures })}`,
  );
  expect(load.acceptedAfterRevocation()).toEqual([]);
  expect(load.outcomes.filter((o) => typeof o.status !== 'number')).toEqual([]);
  expect(load.outcomes.filter((o) => ![200, 201, 401, 503].includes(o.status as number))).toEqual([]);
  expect(load.outcomes.filter((o) => o.status === 503 && !o.retryAfter)).toEqual([]);
  expect(new Set(found).size).toBe(acknowledged.length);
}
