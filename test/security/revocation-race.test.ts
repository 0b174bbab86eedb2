// No request sent after `token revoke` has returned is served, even while other requests with
// the same token are being verified (docs/cli.md#tokens). The daemons run in this process with a token
// cache of one entry and two tokens in turn, so the revoked token is re-verified (a KDF run) on
// nearly every request: a verification is in flight whenever the revocation commits, which is
// the moment a request could join a check that read the row before it. Runs on the suite's
// backend: one daemon on SQLite, two daemons on one database on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startDaemon, type Daemon } from '../../src/http/server.js';
import { checksum, randomBase62 } from '../../src/domain/tokens/format.js';
import { createAccounts, createSandbox, createToken, IS_PG, type Sandbox } from '../helpers/cli.js';

const ROUNDS = 8;
const PROBES_MS = [0, 10, 50, 100];
const silent = { write: () => true } as unknown as NodeJS.WritableStream;

describe(`revocation on ${IS_PG ? 'PostgreSQL with two daemons' : 'SQLite'}`, () => {
  let box: Sandbox;
  let daemons: Daemon[] = [];

  beforeAll(async () => {
    box = await createSandbox();
    await createAccounts(box, { root: 'superuser', reader: 'user' });
    const config = loadConfig(box.configFile, { ...process.env, ...box.env });
    const start = () =>
      startDaemon(config, {
        host: '127.0.0.1',
        port: 0,
        logDestination: silent,
        // One cache entry, budgets out of the way, and a queue deep enough that verifications
        // wait their turn: each takes tens of milliseconds from start to verdict.
        auth: {
          cacheSize: 1,
          perToken: { burst: 1e6, perMinute: 1e6 },
          perClient: { burst: 1e6, perMinute: 1e6 },
          kdf: { concurrency: 1, perClient: 1000, total: 1000 },
        },
      });
    daemons = IS_PG ? await Promise.all([start(), start()]) : [await start()];
  });

  afterAll(async () => {
    await Promise.all(daemons.map((d) => d.close()));
    await box?.cleanup();
  });

  const status = async (daemon: Daemon, token: string) => {
    try {
      const res = await fetch(`${daemon.url}/api/objects`, { headers: { Authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return 0; // a connection closed under the request: not served
    }
  };

  it('refuses every request sent 0, 10, 50 and 100 ms after token revoke returned, while others are in flight', async () => {
    const bait = await createToken(box, 'reader', 'bait', 'root');
    const served: string[] = [];
    let sentAfterReturn = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const victim = await createToken(box, 'reader', `victim ${round}`, 'root');
      const decoy = await createToken(box, 'reader', `decoy ${round}`, 'root');
      let revokedAt = Number.POSITIVE_INFINITY;
      let running = true;
      // Twelve clients per daemon, alternating the two tokens so the one-entry cache keeps
      // evicting the victim: its verifications keep running and queueing, each a KDF run.
      const load = daemons.flatMap((daemon) =>
        Array.from({ length: 12 }, async (_, n) => {
          for (let i = n; running; i++) {
            const useVictim = i % 2 === 0;
            const sentAt = performance.now();
            const code = await status(daemon, useVictim ? victim.token : decoy.token);
            if (useVictim && sentAt > revokedAt) {
              sentAfterReturn++;
              if (code !== 401)
                served.push(`round ${round}: in-flight load sent ${Math.round(sentAt - revokedAt)} ms after → ${code}`);
            }
          }
        }),
      );
      // Forged values for a third token keep the KDF queue busy, so that every verification
      // waits its turn and is in flight for tens of milliseconds.
      const forgers = daemons.flatMap((daemon) =>
        Array.from({ length: 16 }, async () => {
          while (running) {
            const secret = randomBase62(40);
            await status(daemon, `arc_${bait.id}${secret}${checksum(bait.id + secret)}`);
          }
        }),
      );
      // The victim works before the revocation, on every daemon.
      for (const daemon of daemons) expect(await status(daemon, victim.token)).toBe(200);
      const revoke = await box.run(['token', 'revoke', victim.id, '--as', 'root']);
      revokedAt = performance.now();
      expect(revoke.code).toBe(0);
      const probes = PROBES_MS.flatMap((ms) =>
        daemons.map(async (daemon, d) => {
          await new Promise((done) => setTimeout(done, ms));
          const code = await status(daemon, victim.token);
          sentAfterReturn++;
          if (code !== 401) served.push(`round ${round}: probe at +${ms} ms on daemon ${d} → ${code}`);
        }),
      );
      await Promise.all(probes);
      running = false;
      await Promise.all([...load, ...forgers]);
      // The decoy was never touched by the revocation.
      for (const daemon of daemons) expect(await status(daemon, decoy.token)).toBe(200);
    }
    expect(served).toEqual([]);
    expect(sentAfterReturn).toBeGreaterThanOrEqual(ROUNDS * PROBES_MS.length * daemons.length);
    // Every probe waits its turn behind the flood's KDF runs, one at a time: on a busy machine
    // the rounds take minutes; the bound only guards a hang.
  }, 240_000);
});
