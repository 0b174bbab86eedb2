// Issue 12: PostgreSQL going away and coming back, then stalling, as two daemons see it through
// a TCP proxy of the test's own (the shared server is never restarted). While the database is
// away or stalled every request is answered within a bounded time (503 with Retry-After where
// the database was needed) and /readyz answers 503; after its return every daemon is ready again,
// notifications heard, within 10 s. A token revoked by the CLI (which reaches the server
// directly) while the daemons cannot is refused afterwards; acknowledged writes are all stored.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IS_PG, PG_URL, type Sandbox } from '../helpers/cli.js';
import type { RunningDaemon } from '../helpers/daemon.js';
import {
  allReady,
  expectLoadHeld,
  expectRefused,
  faultSandbox,
  startDaemons,
  startLoad,
  type Staff,
} from './faults-setup.js';
import { timeUntil } from './load.js';
import { startFaultProxy, type FaultProxy } from './tcp-proxy.js';

/** Every daemon's /readyz answers 503 (polled until `limitMs`); the time it took, or null. */
const allUnready = (daemons: RunningDaemon[], limitMs: number) =>
  timeUntil(async () => {
    const statuses = await Promise.all(
      daemons.map(async (d) => {
        const r = await d.fetch('/readyz', { signal: AbortSignal.timeout(5_000) });
        await r.arrayBuffer();
        return r.status;
      }),
    );
    return statuses.every((s) => s === 503);
  }, limitMs);

describe.skipIf(!IS_PG)('PostgreSQL away and back, then stalled, behind a proxy', () => {
  let box: Sandbox;
  let staff: Staff;
  let proxy: FaultProxy;
  let daemons: RunningDaemon[] = [];

  beforeAll(async () => {
    ({ box, staff } = await faultSandbox(2));
    const server = new URL(PG_URL ?? '');
    proxy = await startFaultProxy({ host: server.hostname, port: Number(server.port || 5432) });
    daemons = await startDaemons(box, 2, { DATABASE_URL: proxy.through(box.env.DATABASE_URL ?? '') });
  });
  afterAll(async () => {
    proxy?.restore();
    for (const d of daemons) await d.stop();
    await proxy?.close();
    await box?.cleanup();
  });

  it('answers 503 promptly while away or stalled, recovers within 10 s, revocations hold', async () => {
    const load = await startLoad(daemons, staff);
    await delay(1_000);

    const figures: Record<string, number | null> = {};
    const faults = [
      ['away', () => proxy.cut()],
      ['stalled', () => proxy.stall()],
    ] as const;
    for (const [i, [name, fault]] of faults.entries()) {
      const victim = staff.victims[i]!;
      fault();
      figures[`${name}: unready after ms`] = await allUnready(daemons, 8_000);
      const r = await box.run(['token', 'revoke', victim.id, '--as', 'root']);
      expect(r.code, r.stderr).toBe(0);
      load.revoked(victim.token);
      await delay(2_000);
      proxy.restore();
      figures[`${name}: ready again after ms`] = await timeUntil(() => allReady(daemons), 10_000);
      await expectRefused(daemons, victim.token);
      await delay(1_000);
    }
    await expectLoadHeld(load, box, 'database away and stalled', figures);
    for (const [name] of faults) {
      expect(figures[`${name}: unready after ms`], `/readyz 503 while ${name}`).not.toBeNull();
      expect(figures[`${name}: ready again after ms`], `ready within 10 s after ${name}`).not.toBeNull();
    }
    expect(load.outcomes.some((o) => o.status === 503)).toBe(true);
    for (const d of daemons) expect(d.running()).toBe(true);
  }, 120_000);
});
