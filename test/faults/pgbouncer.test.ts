// Issue 12: a daemon behind PgBouncer in transaction pooling mode, which accepts LISTEN but
// never delivers notifications to it. The daemon must find out by itself (its heartbeat's
// NOTIFY round trip is never heard: /readyz reports notifications "unverified") and read the
// access generation per request, so that a token revoked through the CLI (which reaches the
// server directly) is refused by its very next request. The test runs a pgbouncer of its own.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IS_PG, PG_URL, type Sandbox } from '../helpers/cli.js';
import type { RunningDaemon } from '../helpers/daemon.js';
import { freePort } from '../helpers/raw-http.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';
import { faultSandbox, startDaemons, type Staff } from './faults-setup.js';
import { timeUntil } from './load.js';

const pgbouncer = IS_PG ? systemTool('pgbouncer', 'pgbouncer') : { path: null, skip: 'not a PostgreSQL run' };

/** Starts pgbouncer in transaction mode in front of the test server; resolves once it accepts. */
async function startPgBouncer(dir: string): Promise<{ port: number; proc: ChildProcess }> {
  const server = new URL(PG_URL ?? '');
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      // auth_type "any" needs the server-side user named here.
      `* = host=${server.hostname} port=${server.port || 5432} user=${server.username || 'postgres'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      // node-postgres sends these start-up parameters; PgBouncer refuses unknown ones.
      'ignore_startup_parameters = extra_float_digits,statement_timeout',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: it is told to switch to the server's account.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    for (const f of [dir, ini]) chownSync(f, uid, -1);
  }
  const proc = spawn(pathOf(pgbouncer, 'pgbouncer'), [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: 'ignore' });
  const up = await timeUntil(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.destroy();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      }),
    10_000,
  );
  if (up === null) throw new Error('pgbouncer did not start');
  return { port, proc };
}

describe.skipIf(pgbouncer.skip !== null)('a daemon behind PgBouncer in transaction pooling mode', () => {
  let box: Sandbox;
  let staff: Staff;
  let dir: string;
  let bouncer: { port: number; proc: ChildProcess } | undefined;
  let daemon: RunningDaemon;

  beforeAll(async () => {
    ({ box, staff } = await faultSandbox(3));
    dir = mkdtempSync(path.join(os.tmpdir(), 'archivectl-pgbouncer-'));
    bouncer = await startPgBouncer(dir);
    const url = new URL(box.env.DATABASE_URL ?? '');
    url.hostname = '127.0.0.1';
    url.port = String(bouncer.port);
    [daemon] = (await startDaemons(box, 1, { DATABASE_URL: url.toString() })) as [RunningDaemon];
  });
  afterAll(async () => {
    await daemon?.stop();
    bouncer?.proc.kill('SIGTERM');
    await box?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reports its notifications unverified and refuses a revoked token at once', async () => {
    const readiness = await daemon.fetch('/readyz');
    expect(readiness.status).toBe(200);
    expect(await readiness.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', notifications: 'unverified' },
    });
    const get = async (token: string) => {
      const r = await daemon.fetch('/api/actors', { headers: { Authorization: `Bearer ${token}` } });
      await r.arrayBuffer();
      return r.status;
    };
    let accepted = 0;
    for (const victim of staff.victims) {
      expect(await get(victim.token)).toBe(200);
      const r = await box.run(['token', 'revoke', victim.id, '--as', 'root']);
      expect(r.code, r.stderr).toBe(0);
      if ((await get(victim.token)) !== 401) accepted++;
    }
    console.log(`faults: behind pgbouncer ${JSON.stringify({ revocations: staff.victims.length, accepted })}`);
    expect(accepted).toBe(0);
    expect(await get(staff.reader)).toBe(200);
  }, 60_000);
});
