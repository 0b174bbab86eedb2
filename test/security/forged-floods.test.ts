// Forged values at scale: budgets no client can spoof, reset or spread over addresses to buy
// KDF runs, and a legitimate client that gets through while its token's id is flooded. The
// daemons run in this process (their counters can be read); clients send from 127.0.0.x.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { checksum, randomBase62 } from '../../src/domain/tokens/format.js';
import { startDaemon, type Daemon, type DaemonOptions } from '../../src/http/server.js';
import { createAccounts, createSandbox, createToken, type Sandbox } from '../helpers/cli.js';

const silent = { write: () => true } as unknown as NodeJS.WritableStream;
let box: Sandbox;
const daemons: Daemon[] = [];

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, { root: 'superuser', reader: 'user' });
});

afterAll(async () => {
  await Promise.all(daemons.map((d) => d.close()));
  await box?.cleanup();
});

async function daemonWith(patch: Partial<Config>, options: DaemonOptions = {}): Promise<Daemon> {
  const config = { ...loadConfig(box.configFile, { ...process.env, ...box.env }), ...patch };
  const d = await startDaemon(config, { host: '127.0.0.1', port: 0, logDestination: silent, ...options });
  daemons.push(d);
  return d;
}

/** Failure budgets that regain nothing while a test runs, and a single probation run. */
const FROZEN_BUDGETS = {
  perToken: { burst: 10, perMinute: 0 },
  perClient: { burst: 60, perMinute: 0 },
  probationPerSecond: 0,
};

const forged = (id: string) => {
  const secret = randomBase62(40);
  return `arc_${id}${secret}${checksum(id + secret)}`;
};

/** One request from `localAddress`; the status and Retry-After (0 for a dropped connection). */
function send(d: Daemon, token: string, localAddress = '127.0.0.1', headers: Record<string, string> = {}) {
  return new Promise<{ status: number; retryAfter: number }>((resolve) => {
    const req = http.get(
      `${d.url}/api/objects`,
      { localAddress, agent: false, headers: { Authorization: `Bearer ${token}`, ...headers } },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 0) }),
        );
      },
    );
    req.on('error', () => resolve({ status: 0, retryAfter: 0 }));
  });
}

/** The first use of `token`, retrying as told by 429/503 answers, at most `tries` times. */
async function firstUse(d: Daemon, token: string, localAddress = '127.0.0.1', tries = 10): Promise<number> {
  let last = 0;
  for (let i = 0; i < tries; i++) {
    const r = await send(d, token, localAddress);
    last = r.status;
    if (r.status !== 429 && r.status !== 503) return r.status;
    await new Promise((done) => setTimeout(done, 1000 * Math.max(1, r.retryAfter)));
  }
  return last;
}

describe('the client address behind proxies', () => {
  it('ignores X-Forwarded-For unless trustProxy names the peer: spoofed addresses buy no budget', async () => {
    // Budgets that never refill, and one probation run: what the flood buys is a count, not a rate.
    const d = await daemonWith({ trustProxy: false }, { auth: FROZEN_BUDGETS });
    const t = await createToken(box, 'reader', 'spoof target', 'root');
    const before = d.authenticator.stats.kdfRuns;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => send(d, forged(t.id), '127.0.0.1', { 'X-Forwarded-For': `203.0.113.${i}` })),
    );
    const runs = d.authenticator.stats.kdfRuns - before;
    // 10 credits for the id from 127.0.0.1, and the one probation run.
    expect(runs).toBeLessThanOrEqual(10 + 1);
    // A refusal after a KDF run is a 401; the rest were refused without one: out of budget
    // (429), or beyond this client's places in the KDF queue (503).
    expect(answers.filter((a) => a.status === 401).length).toBe(runs);
    expect(answers.every((a) => [401, 429, 503].includes(a.status))).toBe(true);
  });

  it('takes the client from X-Forwarded-For only when the peer is a configured proxy', async () => {
    // The budgets as configured, on a stopwatch that stands still: the probation trickle cannot
    // refill between two forged values however slowly the machine answers them.
    const d = await daemonWith({ trustProxy: ['127.0.0.1'] }, { stopwatch: () => 0 });
    const t = await createToken(box, 'reader', 'behind proxy', 'root');
    // Through the proxy, two clients: one forging until throttled, the other with the value.
    let throttled = false;
    for (let i = 0; i < 40 && !throttled; i++) {
      throttled = (await send(d, forged(t.id), '127.0.0.1', { 'X-Forwarded-For': '198.51.100.7' })).status === 429;
    }
    expect(throttled).toBe(true);
    expect((await send(d, t.token, '127.0.0.1', { 'X-Forwarded-For': '198.51.100.8' })).status).toBe(200);
    // From a peer that is not a proxy, the same header names nobody: its own address counts.
    const u = await createToken(box, 'reader', 'not a proxy', 'root');
    let spoofedThrottled = false;
    for (let i = 0; i < 40 && !spoofedThrottled; i++) {
      spoofedThrottled =
        (await send(d, forged(u.id), '127.0.0.9', { 'X-Forwarded-For': `198.51.100.${i}` })).status === 429;
    }
    expect(spoofedThrottled).toBe(true);
  });

  it('refuses "trustProxy": true in the configuration, naming the key', async () => {
    const { writeFile } = await import('node:fs/promises');
    const file = `${box.dir}/trust-all.json`;
    await writeFile(file, JSON.stringify({ trustProxy: true }));
    expect(() => loadConfig(file, {})).toThrow(/"trustProxy" must name the proxies/);
    await writeFile(file, JSON.stringify({ trustProxy: ['not an address'] }));
    expect(() => loadConfig(file, {})).toThrow(/"trustProxy"/);
  });
});

describe('budgets', () => {
  it('cannot be reset by flooding other ids: a client out of budget stays out', async () => {
    const d = await daemonWith({}, { auth: { ...FROZEN_BUDGETS, budgetKeys: 50 } });
    const t = await createToken(box, 'reader', 'no reset', 'root');
    let throttled = false;
    for (let i = 0; i < 40 && !throttled; i++) throttled = (await send(d, forged(t.id), '127.0.0.30')).status === 429;
    expect(throttled).toBe(true);
    // Hundreds of unknown ids from the same address: more than the budget table holds.
    for (let batch = 0; batch < 4; batch++) {
      await Promise.all(Array.from({ length: 50 }, () => send(d, forged(randomBase62(8)), '127.0.0.30')));
    }
    const runsBefore = d.authenticator.stats.kdfRuns;
    const again = await Promise.all(Array.from({ length: 20 }, () => send(d, forged(t.id), '127.0.0.30')));
    expect(d.authenticator.stats.kdfRuns - runsBefore).toBeLessThanOrEqual(1); // the one probation run at most
    expect(again.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(15);
  });

  it("bound the KDF work of 40 addresses forging at one id, and the owner's first use still gets through", async () => {
    const d = await daemonWith({}, { auth: FROZEN_BUDGETS });
    const t = await createToken(box, 'reader', 'flooded id', 'root');
    let running = true;
    // The owner comes once every attacker has been answered at least once: the flood is on.
    let answeredOnce = 0;
    let flooding: () => void = () => undefined;
    const floodOn = new Promise<void>((done) => (flooding = done));
    const attackers = Array.from({ length: 40 }, async (_, i) => {
      const address = `127.0.1.${i + 1}`;
      const seen: number[] = [];
      while (running) {
        seen.push((await send(d, forged(t.id), address)).status);
        if (seen.length === 1 && ++answeredOnce === 40) flooding();
      }
      return seen;
    });
    await floodOn;
    const status = await firstUse(d, t.token, '127.0.0.1');
    running = false;
    const answers = (await Promise.all(attackers)).flat();
    expect(status).toBe(200);
    // Every attacker answer is a documented refusal: never a 5xx other than 503, never a success.
    expect(answers.every((s) => s === 401 || s === 429 || s === 503)).toBe(true);
    // Each address spent at most its 10 credits on the id; the owner one run; probation one.
    const { kdfRuns } = d.authenticator.stats;
    expect(kdfRuns).toBeLessThanOrEqual(40 * 10 + 1 + 1);
  });
});
