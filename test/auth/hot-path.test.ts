// The hot path (issue: near-free authentication): a daemon started in this process, talking over
// real HTTP on 127.0.0.1 to a sandbox that the CLI administers; what each request cost (KDF runs,
// token lookups, cache hits) is read from its /metrics endpoint, as an operator would. Not timed:
// counted.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startDaemon, type Daemon } from '../../src/http/server.js';
import { checksum, randomBase62 } from '../../src/domain/tokens/format.js';
import {
  createAccounts,
  createSandbox,
  createToken,
  IS_PG,
  pgAdmin,
  type Sandbox,
  asAdministrator,
} from '../helpers/cli.js';
import { authCounters } from '../helpers/metrics.js';

let box: Sandbox;
let daemon: Daemon;
let now = Date.parse('2026-11-20T12:00:00.000Z');
const clock = { now: () => new Date(now) };
const NOW_ISO = () => new Date(now).toISOString();
// What the failure budgets refill with: it moves only when a test moves it, so a Retry-After is
// waited out by moving it, and no budget refills while a test runs on a slow machine.
let elapsedMs = 0;

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, { root: 'superuser', reader: 'user', ed: 'editor' });
  const config = loadConfig(box.configFile, { ...process.env, ...box.env });
  daemon = await startDaemon(config, {
    host: '127.0.0.1',
    port: 0,
    clock,
    stopwatch: () => elapsedMs,
    logDestination: { write: () => true } as unknown as NodeJS.WritableStream,
    auth: { cacheSize: 4, perToken: { burst: 5, perMinute: 5 }, probationPerSecond: 1 },
  });
});

afterAll(async () => {
  await daemon?.close();
  await box?.cleanup();
});

const get = (token: string, path = '/api/objects') =>
  fetch(`${daemon.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
const stats = () => authCounters(daemon.url);
const token = (name: string, user = 'reader', extra: string[] = []) =>
  createToken(box, user, name, 'root', extra, { now: NOW_ISO() });

describe('verified tokens are cached', () => {
  it('runs the KDF once per token across many requests', async () => {
    const t = await token('many requests');
    const before = await stats();
    for (let i = 0; i < 30; i++) expect((await get(t.token)).status).toBe(200);
    const after = await stats();
    expect(after.kdfRuns - before.kdfRuns).toBe(1);
    expect(after.cacheHits - before.cacheHits).toBe(29);
  });

  it('never reaches the KDF or the database with malformed values', async () => {
    const t = await token('malformed');
    const flipped = t.token.slice(0, -1) + (t.token.endsWith('a') ? 'b' : 'a');
    const bad = [
      `xyz_${t.token.slice(4)}`, // prefix
      t.token.slice(0, -2), // length
      `${t.token.slice(0, 20)}-${t.token.slice(21)}`, // alphabet
      flipped, // checksum
      'a'.repeat(59),
      '',
    ];
    const before = await stats();
    for (const value of bad) expect((await get(value)).status).toBe(401);
    const after = await stats();
    expect(after.kdfRuns).toBe(before.kdfRuns);
    expect(after.lookups).toBe(before.lookups);
  });

  it('refuses an unknown selector after one lookup and no KDF run, as a wrong secret for a known one', async () => {
    const selector = randomBase62(8);
    const secret = randomBase62(40);
    const before = await stats();
    expect((await get(`arc_${selector}${secret}${checksum(selector + secret)}`)).status).toBe(401);
    const after = await stats();
    expect(after.lookups - before.lookups).toBe(1);
    expect(after.kdfRuns - before.kdfRuns).toBe(0);
  });

  it('is bounded in size', async () => {
    for (let i = 0; i < 7; i++) {
      const t = await token(`bounded ${i}`);
      expect((await get(t.token)).status).toBe(200);
      expect((await stats()).cacheEntries).toBeLessThanOrEqual(4);
    }
    expect((await stats()).cacheEntries).toBe(4);
  });
});

describe('the cache never serves a token that lost its access', () => {
  it('refuses a revoked token at once, and re-checks the others without the KDF', async () => {
    const a = await token('revoked soon');
    const b = await token('stays');
    expect((await get(a.token)).status).toBe(200);
    expect((await get(b.token)).status).toBe(200);
    const before = await stats();
    expect((await box.run(['token', 'revoke', a.id, '--as', 'root'])).code).toBe(0);
    expect((await get(a.token)).status).toBe(401);
    expect((await get(b.token)).status).toBe(200);
    expect((await stats()).kdfRuns).toBe(before.kdfRuns);
  });

  it('refuses an expired token once its day has passed', async () => {
    const day = NOW_ISO().slice(0, 10);
    const t = await token('expiring', 'reader', ['--expires', day]);
    expect((await get(t.token)).status).toBe(200);
    const saved = now;
    now = Date.parse(`${day}T23:59:59.999Z`);
    expect((await get(t.token)).status).toBe(200);
    now = Date.parse(`${day}T23:59:59.999Z`) + 1;
    const res = await get(t.token);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toMatch(/expired/);
    now = saved;
  });

  it('refuses a blocked account with 403 and a deleted account with 401', async () => {
    await createAccounts(box, { blockme: 'user', deleteme: 'user' });
    const blocked = await token('to block', 'blockme');
    const deleted = await token('to delete', 'deleteme');
    expect((await get(blocked.token)).status).toBe(200);
    expect((await get(deleted.token)).status).toBe(200);
    await box.run(['account', 'set-role', 'blockme', 'blocked', ...(await asAdministrator(box))]);
    expect((await get(blocked.token)).status).toBe(403);
    await box.run(['account', 'delete', 'deleteme', ...(await asAdministrator(box)), '--yes']);
    expect((await get(deleted.token)).status).toBe(401);
  });

  it('follows role changes for writes', async () => {
    await createAccounts(box, { climber: 'user' });
    const t = await token('climber', 'climber');
    const post = () =>
      fetch(`${daemon.url}/api/actors`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.token}`, 'Content-Type': 'application/json' },
        body: '{"name":"Climber"}',
      });
    expect((await post()).status).toBe(403);
    await box.run(['account', 'set-role', 'climber', 'editor', ...(await asAdministrator(box))]);
    expect((await post()).status).toBe(201);
  });
});

const forge = (selector: string, n: number) =>
  Array.from({ length: n }, () => {
    const secret = randomBase62(40);
    return `arc_${selector}${secret}${checksum(selector + secret)}`;
  });

/** One request with `value` from `address`: its status, body and the headers a client sees (Date aside). */
const from = (address: string, value: string) =>
  new Promise<{ status: number; body: string; headers: string }>((resolve, reject) => {
    http
      .get(
        `${daemon.url}/api/objects`,
        { localAddress: address, headers: { Authorization: `Bearer ${value}` } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => {
            const { date: _date, 'x-request-id': _id, ...headers } = res.headers;
            resolve({ status: res.statusCode ?? 0, body, headers: JSON.stringify(headers) });
          });
        },
      )
      .on('error', reject);
  });

describe('forged tokens with a real selector', () => {
  it('are answered the same whether the id exists, is in use, or is unknown: one lookup each, a KDF run for a known id', async () => {
    const t = await token('flooded');
    expect((await get(t.token)).status).toBe(200); // in use: its true value is cached
    const unused = await token('never used');
    const answers: Record<string, { status: number; body: string; headers: string }[]> = {};
    const costs: Record<string, { kdfRuns: number; lookups: number }> = {};
    // Each id from an address of its own: the budgets (5 per id and address) are not shared.
    const ids = {
      'in use': [t.id, '127.0.0.3'],
      unused: [unused.id, '127.0.0.4'],
      unknown: [randomBase62(8), '127.0.0.5'],
    };
    for (const [what, [id, address]] of Object.entries(ids) as [string, [string, string]][]) {
      const before = await stats();
      answers[what] = [];
      for (const value of forge(id, 5)) answers[what].push(await from(address, value));
      const after = await stats();
      costs[what] = { kdfRuns: after.kdfRuns - before.kdfRuns, lookups: after.lookups - before.lookups };
    }
    for (const what of Object.keys(ids)) {
      expect(costs[what], what).toEqual({ kdfRuns: what === 'unknown' ? 0 : 5, lookups: 5 });
      expect(answers[what], what).toEqual(answers.unknown);
    }
    expect(answers.unknown?.[0]?.status).toBe(401);
    expect((await get(t.token)).status).toBe(200);
  });

  it('after a revocation: a forged value is "not valid" after a KDF run, the true value "revoked" without one', async () => {
    const t = await token('revoked then forged');
    expect((await get(t.token)).status).toBe(200);
    expect((await box.run(['token', 'revoke', t.id, '--as', 'root'])).code).toBe(0);
    let before = await stats();
    const forged = await from('127.0.0.6', forge(t.id, 1)[0] as string);
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.body)).toEqual({ error: 'the token is not valid' });
    expect((await stats()).kdfRuns - before.kdfRuns).toBe(1);
    before = await stats();
    const real = await get(t.token);
    expect(real.status).toBe(401);
    expect(await real.json()).toEqual({ error: 'the token has been revoked' });
    expect((await stats()).kdfRuns - before.kdfRuns).toBe(0);
  });

  it('spend at most the budget and the probation trickle in KDF runs for a token never verified here, then get 429', async () => {
    const t = await token('never verified');
    const before = await stats();
    const answers = await Promise.all(forge(t.id, 40).map((v) => get(v)));
    const after = await stats();
    // 5 credits for the token id from this address, and at most the 1 probation run the trickle
    // holds (the stopwatch stands still: nothing refills meanwhile).
    expect(after.kdfRuns - before.kdfRuns).toBeLessThanOrEqual(5 + 1);
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBe(after.kdfRuns - before.kdfRuns);
    const throttled = answers.filter((r) => r.status === 429);
    expect(throttled.length).toBeGreaterThanOrEqual(40 - 6);
    for (const r of throttled) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((after.refused.throttled ?? 0) - (before.refused.throttled ?? 0)).toBe(throttled.length);
  });
});

describe('last used', () => {
  it('is written for every use before a flush once it resolves, even while another flush runs', async () => {
    // A flush that finds another one running (the timer's, or serve's shutdown meeting it)
    // must wait for it: stopping the daemon closes the database once flush() resolves.
    const tokens = await Promise.all(['early 1', 'early 2', 'early 3'].map((name) => token(name)));
    await daemon.lastUsed.flush();
    const before = daemon.lastUsed.writes;
    for (const t of tokens) expect((await get(t.token)).status).toBe(200);
    const running = daemon.lastUsed.flush();
    await daemon.lastUsed.flush();
    expect(daemon.lastUsed.writes - before).toBe(3);
    await running;
    const listed = await box.json<{ id: string; last_used: string | null }[]>(['token', 'list', 'reader']);
    for (const t of tokens) expect(listed.find((x) => x.id === t.id)?.last_used).toBe(NOW_ISO());
  });

  it('is written at most once a minute per token under sustained use', async () => {
    const t = await token('sustained');
    await daemon.lastUsed.flush();
    const before = daemon.lastUsed.writes;
    const start = now;
    // 3 simulated minutes of one request per second
    for (let s = 0; s < 180; s++) {
      now = start + s * 1000;
      expect((await get(t.token)).status).toBe(200);
      if (s % 10 === 0) await daemon.lastUsed.flush();
    }
    await daemon.lastUsed.flush();
    const writes = daemon.lastUsed.writes - before;
    expect(writes).toBeGreaterThanOrEqual(3);
    expect(writes).toBeLessThanOrEqual(3);
    const listed = await box.json<{ id: string; last_used: string }[]>(['token', 'list', 'reader'], {
      now: new Date(now).toISOString(),
    });
    const lastUsed = Date.parse(listed.find((x) => x.id === t.id)?.last_used ?? '');
    expect(now - lastUsed).toBeLessThanOrEqual(60_000);
    now = start;
  });
});

describe('stored hashes made with other scrypt parameters', () => {
  it('are replaced with the current parameters on the next successful use', async () => {
    const { default: knex } = await import('knex');
    const { SCRYPT_PARAMS } = await import('../../src/domain/tokens/hash.js');
    const scrypt = (
      (await import('scrypt-kdf')) as unknown as {
        default: { kdf(p: string, o: object): Promise<Uint8Array>; viewParams(k: Uint8Array): { logN: number } };
      }
    ).default;
    const t = await token('old parameters');
    const db = box.dbFile
      ? knex({ client: 'sqlite3', connection: { filename: box.dbFile }, useNullAsDefault: true })
      : knex({ client: 'pg', connection: box.env.DATABASE_URL });
    try {
      const old = Buffer.from(
        await scrypt.kdf(t.token.slice(12, 52), { logN: SCRYPT_PARAMS.logN - 1, r: 8, p: 1 }),
      ).toString('base64');
      await db('tokens').where('selector', t.id).update({ secret_hash: old });
      const hashOf = async (id: string) =>
        (await db('tokens').where('selector', id).first<{ secret_hash: string }>('secret_hash')).secret_hash;
      const others = await db('tokens')
        .whereNot('selector', t.id)
        .select<{ selector: string; secret_hash: string }[]>('selector', 'secret_hash');
      expect(others.length).toBeGreaterThan(0);
      expect((await get(t.token)).status).toBe(200);
      const fresh = await hashOf(t.id);
      expect(fresh).not.toBe(old);
      expect(scrypt.viewParams(Buffer.from(fresh, 'base64')).logN).toBe(SCRYPT_PARAMS.logN);
      // Only this token's row was re-hashed: every other keeps its own hash, and works.
      for (const o of others) expect(await hashOf(o.selector)).toBe(o.secret_hash);
      expect((await get(t.token)).status).toBe(200);
    } finally {
      await db.destroy();
    }
  });
});

describe.skipIf(!IS_PG)('PostgreSQL: change notifications and leases', () => {
  const lease = () =>
    (daemon.access.source as unknown as { lease: { lapses: number; listenerPid(): number | null } }).lease;

  it('serves requests without reading the generation while the lease is valid', async () => {
    const t = await token('leased');
    expect((await get(t.token)).status).toBe(200);
    const before = lease().lapses;
    for (let i = 0; i < 30; i++) expect((await get(t.token)).status).toBe(200);
    expect(lease().lapses).toBe(before);
  });

  it('refuses a revoked token on the next request, also after its LISTEN connection was cut', async () => {
    const a = await token('listen cut a');
    const b = await token('listen cut b');
    expect((await get(a.token)).status).toBe(200);
    expect((await get(b.token)).status).toBe(200);
    const pid = lease().listenerPid();
    expect(pid).not.toBeNull();
    await pgAdmin(`SELECT pg_terminate_backend(${pid})`);
    await box.run(['token', 'revoke', a.id, '--as', 'root']);
    expect((await get(a.token)).status).toBe(401);
    expect((await get(b.token)).status).toBe(200);
    // the heartbeat reconnects, and the daemon goes back to trusting its lease (the bound only
    // guards a hang: a loaded machine may take seconds to run the 500 ms heartbeat)
    let back = false;
    for (let i = 0; i < 300 && !back; i++) {
      await new Promise((r) => setTimeout(r, 100));
      back = lease().listenerPid() !== null && lease().listenerPid() !== pid;
    }
    expect(back).toBe(true);
    await box.run(['token', 'revoke', b.id, '--as', 'root']);
    expect((await get(b.token)).status).toBe(401);
  });
});

describe('the failure budget', () => {
  it('is kept per client address: forging at a token id does not lock its owner out', async () => {
    const t = await token('budget per client');
    const forged = Array.from({ length: 8 }, () => {
      const secret = randomBase62(40);
      return `arc_${t.id}${secret}${checksum(t.id + secret)}`;
    });
    // From 127.0.0.1: the budget (5) is spent, then the probation trickle (1/s) answers 401 or 429.
    for (const v of forged) expect([401, 429]).toContain((await get(v)).status);
    expect((await get(forged[0] as string)).status).toBe(429);
    const from = (address: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get(
            `${daemon.url}/api/objects`,
            { localAddress: address, headers: { Authorization: `Bearer ${t.token}` } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          )
          .on('error', reject);
      });
    expect(await from('127.0.0.2')).toBe(200); // the owner, elsewhere, is verified
  });

  it("does not lock out the owner of a new token who shares the forger's address", async () => {
    const t = await token('shared address');
    for (let i = 0; i < 10; i++) {
      const secret = randomBase62(40);
      await get(`arc_${t.id}${secret}${checksum(t.id + secret)}`);
    }
    // Out of budget for this id from 127.0.0.1: the owner is told when to come back, and is then
    // verified, however the forger spent the probation trickle meanwhile.
    const refused = await get(t.token);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    elapsedMs += 1000 * retryAfter;
    expect((await get(t.token)).status).toBe(200);
  });
});

describe('a burst of first requests with one new token', () => {
  it('is verified once, and every request is served (the burst does not spend the failure budget)', async () => {
    const t = await token('burst');
    const before = await stats();
    const answers = await Promise.all(Array.from({ length: 12 }, () => get(t.token)));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect((await stats()).kdfRuns - before.kdfRuns).toBe(1);
  });
});
