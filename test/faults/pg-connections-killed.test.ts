// Issue 12: the daemon's own PostgreSQL connections ended by the server (pg_terminate_backend) on
// its pool, on its LISTEN connection, then both, while two daemons serve steady authenticated
// reads and writes and a token is revoked right after each cut. No request may hang, nothing may
// crash, each daemon must be ready again (notifications heard) within 10 s by itself, a revoked
// token is never accepted afterwards and every write acknowledged with a 2xx is in the database.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IS_PG, type Sandbox } from '../helpers/cli.js';
import type { RunningDaemon } from '../helpers/daemon.js';
import {
  allReady,
  expectLoadHeld,
  expectRefused,
  faultScene,
  startLoad,
  stopAll,
  terminate,
  type Staff,
} from './faults-setup.js';
import { timeUntil } from './load.js';

describe.skipIf(!IS_PG)("the daemon's own PostgreSQL connections killed under load", () => {
  let box: Sandbox;
  let staff: Staff;
  let daemons: RunningDaemon[] = [];

  beforeAll(async () => {
    ({ box, staff, daemons } = await faultScene(3, 2));
  });
  afterAll(() => stopAll(daemons, box));

  it('pool, LISTEN, both: bounded answers, recovery, revocations hold, acknowledged writes kept', async () => {
    const load = await startLoad(daemons, staff);
    await delay(1_000);
    const recoveryMs: Record<string, number | null> = {};
    const cuts = ['pool', 'listen', 'all'] as const;
    for (const [i, which] of cuts.entries()) {
      const victim = staff.victims[i]!;
      await terminate(box, which);
      const r = await box.run(['token', 'revoke', victim.id, '--as', 'root']);
      expect(r.code, r.stderr).toBe(0);
      load.revoked(victim.token);
      await expectRefused(daemons, victim.token);
      recoveryMs[which] = await timeUntil(() => allReady(daemons), 10_000);
      await delay(1_000);
    }
    await expectLoadHeld(load, box, 'connections killed', { recoveryMs });
    for (const which of cuts) expect(recoveryMs[which], `recovery after ${which}`).not.toBeNull();
    for (const d of daemons) expect(d.running()).toBe(true);
  }, 90_000);
});
