// The authenticator (src/domain/tokens/authenticate.ts) through its one door, authenticate():
// what each kind of value is answered and what it cost (lookups, KDF runs, cache hits), on a real
// database administered with the CLI. The HTTP side of the same is test/auth/hot-path.test.ts.
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Authenticator,
  DEFAULT_AUTH_OPTIONS,
  type AuthenticatorOptions,
} from '../../src/domain/tokens/authenticate.js';
import { checksum, randomBase62 } from '../../src/domain/tokens/format.js';
import { hashSecret, SCRYPT_PARAMS } from '../../src/domain/tokens/hash.js';
import { createAccounts, createToken, type Sandbox, sandboxWithDb, closeSandboxWithDb } from '../helpers/cli.js';

let box: Sandbox;
let db: Knex;
let now = Date.parse('2026-11-20T12:00:00.000Z');
const clock = { now: () => new Date(now) };

beforeAll(async () => {
  ({ box, db } = await sandboxWithDb({ root: 'superuser', reader: 'user', ed: 'editor' }));
});

afterAll(() => closeSandboxWithDb(box, db));

const token = (name: string, user = 'reader', extra: string[] = []) =>
  createToken(box, user, name, 'root', extra, { now: new Date(now).toISOString() });
const forge = (selector: string) => {
  const secret = randomBase62(40);
  return `arc_${selector}${secret}${checksum(selector + secret)}`;
};
const auth = (options: Partial<AuthenticatorOptions> = {}) =>
  new Authenticator(db, clock, null, { ...DEFAULT_AUTH_OPTIONS, ...options });
const cost = (a: Authenticator) => ({ kdfRuns: a.stats.kdfRuns, lookups: a.stats.lookups, hits: a.stats.cacheHits });
/** A KDF run for `client` that keeps its slot (or its place in the queue) until released. */
const holdKdf = (a: Authenticator, client: string) => {
  let release: () => void = () => undefined;
  const ended = a.kdf.run(client, () => new Promise<void>((done) => (release = done)));
  return { ended, release: () => release() };
};
const diff = (a: Authenticator, before: ReturnType<typeof cost>) => {
  const after = cost(a);
  return {
    kdfRuns: after.kdfRuns - before.kdfRuns,
    lookups: after.lookups - before.lookups,
    hits: after.hits - before.hits,
  };
};

describe('values that are no token', () => {
  it('are refused as malformed without a lookup or a KDF run', async () => {
    const a = auth();
    const t = await token('malformed');
    for (const value of [
      '',
      'short',
      t.token.slice(0, -1),
      `${t.token.slice(0, -1)}!`,
      `xyz_${t.token.slice(4)}`,
      '!'.repeat(60),
    ]) {
      expect(await a.authenticate(value, '1')).toEqual({ ok: false, reason: 'malformed' });
    }
    expect(cost(a)).toEqual({ kdfRuns: 0, lookups: 0, hits: 0 });
  });
});

describe('a valid token', () => {
  it('is verified once, then answered from the cache under the same generation', async () => {
    const a = auth();
    const t = await token('valid');
    const first = await a.authenticate(t.token, '1', 'c', '127.0.0.1');
    expect(first).toMatchObject({
      ok: true,
      principal: { selector: t.id, username: 'reader', role: 'user', expiration: null },
    });
    if (first.ok) expect(first.principal.lastUsed).toBe(Number.NEGATIVE_INFINITY);
    const before = cost(a);
    for (let i = 0; i < 3; i++) expect((await a.authenticate(t.token, '1', 'c')).ok).toBe(true);
    expect(diff(a, before)).toEqual({ kdfRuns: 0, lookups: 0, hits: 3 });
    expect(a.cacheSize).toBe(1);
  });

  it('is verified once for a burst of requests at once', async () => {
    const a = auth();
    const t = await token('burst');
    const answers = await Promise.all(Array.from({ length: 8 }, () => a.authenticate(t.token, '1', 'c')));
    expect(answers.every((r) => r.ok)).toBe(true);
    expect(cost(a)).toMatchObject({ kdfRuns: 1, lookups: 1 });
  });

  it('re-reads its row without a KDF run when the generation moved, and follows what changed', async () => {
    const a = auth();
    const t = await token('followed', 'ed');
    expect(await a.authenticate(t.token, '1')).toMatchObject({ ok: true, principal: { role: 'editor' } });
    await box.run(['account', 'set-role', 'ed', 'blocked', '--as', 'root']);
    let before = cost(a);
    expect(await a.authenticate(t.token, '2')).toEqual({ ok: false, reason: 'blocked', selector: t.id });
    expect(diff(a, before)).toEqual({ kdfRuns: 0, lookups: 1, hits: 1 });
    before = cost(a);
    expect(await a.authenticate(t.token, '2')).toMatchObject({ ok: false, reason: 'blocked' });
    expect(diff(a, before)).toEqual({ kdfRuns: 0, lookups: 0, hits: 1 });
    await box.run(['account', 'set-role', 'ed', 'editor', '--as', 'root']);
    expect(await a.authenticate(t.token, '3')).toMatchObject({ ok: true, principal: { role: 'editor' } });
  });

  it('is refused as revoked, and as unknown once its row is gone, without a KDF run', async () => {
    await createAccounts(box, { gone: 'user' });
    const a = auth();
    const t = await token('revoked', 'gone');
    const u = await token('deleted', 'gone');
    expect((await a.authenticate(t.token, '1')).ok).toBe(true);
    expect((await a.authenticate(u.token, '1')).ok).toBe(true);
    await box.run(['token', 'revoke', t.id, '--as', 'root']);
    const before = cost(a);
    expect(await a.authenticate(t.token, '2')).toEqual({ ok: false, reason: 'revoked', selector: t.id });
    await box.run(['account', 'delete', 'gone', '--as', 'root', '--yes']);
    const gone = cost(a);
    expect(await a.authenticate(u.token, '3')).toEqual({ ok: false, reason: 'unknown', selector: u.id });
    expect(diff(a, gone)).toEqual({ kdfRuns: 0, lookups: 1, hits: 0 }); // the re-read found no row: answered
    expect(diff(a, before).kdfRuns).toBe(0);
    expect(a.cacheSize).toBe(1); // the deleted token's entry is dropped
    // Dropped: the next try is a lookup like any other, and an unknown id costs no KDF run.
    const again = cost(a);
    expect(await a.authenticate(u.token, '3')).toMatchObject({ ok: false, reason: 'unknown' });
    expect(diff(a, again)).toMatchObject({ kdfRuns: 0, lookups: 1 });
  });

  it('is refused as expired from the first instant after its last day, with its Token-Expiration', async () => {
    const a = auth();
    const day = new Date(now).toISOString().slice(0, 10);
    const t = await token('expiring', 'reader', ['--expires', day]);
    const nextDay = `${new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 19)}Z`;
    expect(await a.authenticate(t.token, '1')).toMatchObject({ ok: true, principal: { expiration: nextDay } });
    const saved = now;
    now = Date.parse(`${day}T23:59:59.999Z`);
    expect((await a.authenticate(t.token, '1')).ok).toBe(true);
    now += 1;
    expect(await a.authenticate(t.token, '1')).toEqual({ ok: false, reason: 'expired', selector: t.id });
    now = saved;
  });

  it('is verified afresh when another daemon re-hashed its row', async () => {
    const a = auth();
    const t = await token('re-hashed elsewhere');
    expect((await a.authenticate(t.token, '1')).ok).toBe(true);
    await db('tokens')
      .where('selector', t.id)
      .update({ secret_hash: await hashSecret(t.token.slice(12, 52)) });
    const before = cost(a);
    expect((await a.authenticate(t.token, '2')).ok).toBe(true);
    expect(diff(a, before)).toMatchObject({ kdfRuns: 1 });
  });

  it("gets a stored hash with other parameters replaced, and other rows' hashes left alone", async () => {
    const scrypt = (
      (await import('scrypt-kdf')) as unknown as { default: { kdf(p: string, o: object): Promise<Uint8Array> } }
    ).default;
    const t = await token('old parameters');
    const other = await token('untouched');
    const old = Buffer.from(
      await scrypt.kdf(t.token.slice(12, 52), { ...SCRYPT_PARAMS, logN: SCRYPT_PARAMS.logN - 1 }),
    ).toString('base64');
    await db('tokens').where('selector', t.id).update({ secret_hash: old });
    const hashOf = async (id: string) =>
      (await db('tokens').where('selector', id).first<{ secret_hash: string }>('secret_hash')).secret_hash;
    const otherHash = await hashOf(other.id);
    const a = auth();
    expect((await a.authenticate(t.token, '1')).ok).toBe(true);
    expect(await hashOf(t.id)).not.toBe(old);
    expect(await hashOf(other.id)).toBe(otherHash);
    // The cache holds the new hash: a moved generation finds the row as it was left, no KDF run.
    const before = cost(a);
    expect((await a.authenticate(t.token, '2')).ok).toBe(true);
    expect(diff(a, before)).toEqual({ kdfRuns: 0, lookups: 1, hits: 1 });
  });

  it('keeps at most cacheSize verified values, the least recently used dropped first', async () => {
    const a = auth({ cacheSize: 2 });
    const [x, y, z] = await Promise.all(['lru x', 'lru y', 'lru z'].map((n) => token(n)));
    for (const t of [x, y, x, z]) expect((await a.authenticate(t!.token, '1')).ok).toBe(true);
    expect(a.cacheSize).toBe(2);
    const before = cost(a);
    expect((await a.authenticate(x!.token, '1')).ok).toBe(true);
    expect(diff(a, before)).toMatchObject({ kdfRuns: 0 });
    expect((await a.authenticate(y!.token, '1')).ok).toBe(true);
    expect(diff(a, before)).toMatchObject({ kdfRuns: 1 });
  });
});

describe('forged values', () => {
  it('cost one lookup each, and one KDF run when the id names a row (unused, in use or revoked)', async () => {
    const a = auth();
    const inUse = await token('in use');
    const unused = await token('unused');
    const revoked = await token('revoked for forging');
    expect((await a.authenticate(inUse.token, '1')).ok).toBe(true);
    expect((await a.authenticate(revoked.token, '1')).ok).toBe(true);
    await box.run(['token', 'revoke', revoked.id, '--as', 'root']);
    const ids = { unknown: randomBase62(8), unused: unused.id, 'in use': inUse.id, revoked: revoked.id };
    for (const [what, id] of Object.entries(ids)) {
      const before = cost(a);
      const answer = await a.authenticate(forge(id), '2', `client ${what}`);
      expect(answer, what).toEqual({ ok: false, reason: what === 'unknown' ? 'unknown' : 'mismatch', selector: id });
      expect(diff(a, before), what).toEqual({ kdfRuns: what === 'unknown' ? 0 : 1, lookups: 1, hits: 0 });
    }
    expect((await a.authenticate(inUse.token, '2')).ok).toBe(true);
  });

  it('are throttled once the budgets are spent, with the wait, and a right value gives its credit back', async () => {
    const a = auth({ perToken: { burst: 2, perMinute: 1 }, probationPerSecond: 0 });
    const t = await token('budget');
    // The right value spends a credit and gets it back: two forged values still fit, then probation.
    expect((await a.authenticate(t.token, '1', 'c')).ok).toBe(true);
    for (let i = 0; i < 3; i++)
      expect(await a.authenticate(forge(t.id), '1', 'c')).toMatchObject({ reason: 'mismatch' });
    const before = cost(a);
    expect(await a.authenticate(forge(t.id), '1', 'c')).toEqual({
      ok: false,
      reason: 'throttled',
      selector: t.id,
      retryAfterSeconds: 60,
    });
    expect(diff(a, before)).toEqual({ kdfRuns: 0, lookups: 0, hits: 0 });
    expect(a.stats.throttled).toBe(1);
    expect((await a.authenticate(t.token, '1', 'c')).ok).toBe(true); // cached: no budget needed
  });

  it('are answered busy (503) when the KDF queue is full, and the attempt costs no credit', async () => {
    const a = auth({
      kdf: { concurrency: 1, perClient: 0, total: 0 },
      perClient: { burst: 1, perMinute: 0 },
      probationPerSecond: 0,
    });
    const held = holdKdf(a, 'someone');
    const before = cost(a);
    const id = randomBase62(8);
    expect(await a.authenticate(forge(id), '1', 'c')).toEqual({
      ok: false,
      reason: 'busy',
      selector: id,
      retryAfterSeconds: 1,
    });
    expect(a.stats.busy).toBe(1);
    expect(diff(a, before).kdfRuns).toBe(0);
    held.release();
    await held.ended;
    // The client's one credit was given back: this attempt is checked, not throttled.
    expect(await a.authenticate(forge(id), '1', 'c')).toMatchObject({ reason: 'unknown' });
    expect(await a.authenticate(forge(id), '1', 'c')).toMatchObject({ reason: 'unknown' }); // probation
    expect(await a.authenticate(forge(id), '1', 'c')).toMatchObject({ reason: 'throttled' });
  });

  it('answer busy (503) to a known id whose KDF run finds the queue full, and admit it once there is room', async () => {
    const a = auth({ kdf: { concurrency: 1, perClient: 0, total: 0 }, perClient: { burst: 1, perMinute: 0 } });
    const t = await token('cold while busy');
    const held = holdKdf(a, 'someone');
    expect(await a.authenticate(t.token, '1', 'c')).toEqual({
      ok: false,
      reason: 'busy',
      selector: t.id,
      retryAfterSeconds: 1,
    });
    expect(a.stats.busy).toBe(1);
    held.release();
    await held.ended;
    // The client's one credit came back with the busy answer: the retry is verified.
    expect(await a.authenticate(t.token, '1', 'c')).toMatchObject({ ok: true, principal: { selector: t.id } });
  });
});

describe('a token bound to addresses', () => {
  it('is refused from another address with its identity, and admitted from its own', async () => {
    const t = await token('bound', 'reader', ['--allow-from', '192.0.2.0/24']);
    const a = auth();
    const refused = await a.authenticate(t.token, '1', 'c', '203.0.113.1');
    expect(refused).toEqual({
      ok: false,
      reason: 'address',
      selector: t.id,
      token: { tokenId: expect.any(Number) as number, selector: t.id, username: 'reader' },
    });
    // Cached after its verification: refused again without a KDF run, admitted from its block.
    const before = cost(a);
    expect(await a.authenticate(t.token, '1', 'c', '203.0.113.1')).toMatchObject({ ok: false, reason: 'address' });
    expect(await a.authenticate(t.token, '1', 'c', '192.0.2.77')).toMatchObject({
      ok: true,
      principal: { selector: t.id, allowFrom: ['192.0.2.0/24'] },
    });
    expect(diff(a, before)).toEqual({ kdfRuns: 0, lookups: 0, hits: 2 });
  });
});

describe('liveRows (leak reports)', () => {
  it('finds the live tokens among values in one lookup, in the order named, each once', async () => {
    const a = auth();
    const first = await token('reported first');
    const second = await token('reported second');
    const revoked = await token('reported revoked');
    expect((await box.run(['token', 'revoke', revoked.id, '--as', 'root'])).code).toBe(0);
    const before = cost(a);
    const rows = await a.liveRows(
      [second.token, forge(first.id), 'garbage', revoked.token, first.token, second.token, forge('ZZZZZZZZ')],
      'reporter',
    );
    expect(rows.map((r) => r.selector)).toEqual([second.id, first.id]);
    // One query for every id; a KDF run for each live token's value only (fingerprints match).
    expect(diff(a, before)).toEqual({ kdfRuns: 2, lookups: 1, hits: 0 });
    expect(await a.liveRows(['garbage', ''], 'reporter')).toEqual([]);
    expect(diff(a, before).lookups).toBe(1);
  });

  it('finds a live value among many forged ones for its id, spending no failure budget', async () => {
    const a = auth({
      perToken: { burst: 1, perMinute: 1 },
      perClient: { burst: 1, perMinute: 1 },
      probationPerSecond: 0,
    });
    const t = await token('hidden');
    const values = [...Array.from({ length: 30 }, () => forge(t.id)), t.token];
    const before = cost(a);
    expect((await a.liveRows(values, 'reporter')).map((r) => r.selector)).toEqual([t.id]);
    expect(diff(a, before).kdfRuns).toBe(1);
    // The reporter's budgets are whole: a presented forged value is refused as a mismatch, not throttled.
    expect(await a.authenticate(forge(t.id), '1', 'reporter')).toMatchObject({ reason: 'mismatch' });
  });

  it('checks every value of a token without a fingerprint, and of an expired one none', async () => {
    const a = auth();
    const old = await token('made before fingerprints');
    await db('tokens').where('selector', old.id).update({ secret_check: null });
    const values = [forge(old.id), forge(old.id), old.token];
    const before = cost(a);
    expect((await a.liveRows(values, 'reporter')).map((r) => r.selector)).toEqual([old.id]);
    expect(diff(a, before).kdfRuns).toBe(3);
    // Only forged values: none found, each still checked.
    expect(await a.liveRows([forge(old.id), forge(old.id)], 'reporter')).toEqual([]);
    expect(diff(a, before).kdfRuns).toBe(5);

    const ending = await token('ends', 'reader', ['--expires', '2026-11-21']);
    now = Date.parse('2026-11-22T00:00:00.000Z');
    try {
      const mid = cost(a);
      expect(await a.liveRows([ending.token], 'reporter')).toEqual([]);
      expect(diff(a, mid).kdfRuns).toBe(0);
    } finally {
      now = Date.parse('2026-11-20T12:00:00.000Z');
    }
  });

  it('needs no KDF run for a value this process verified under the same hash', async () => {
    const a = auth();
    const t = await token('verified before');
    expect((await a.authenticate(t.token, '1', 'c')).ok).toBe(true);
    const before = cost(a);
    expect((await a.liveRows([t.token], 'reporter')).map((r) => r.selector)).toEqual([t.id]);
    // Named after a forged value of its id: still found without a KDF run.
    expect((await a.liveRows([forge(t.id), t.token], 'reporter')).map((r) => r.selector)).toEqual([t.id]);
    expect(diff(a, before).kdfRuns).toBe(0);
  });

  it('waits for a turn in a full KDF queue instead of skipping the value', async () => {
    const a = auth({ kdf: { concurrency: 1, perClient: 1, total: 1 } });
    const t = await token('queued report');
    // One run holds the slot and another fills the queue: a run not told to wait is refused now.
    const held = [holdKdf(a, 'x'), holdKdf(a, 'y')];
    expect(a.kdf.hasRoomFor('reporter')).toBe(false);
    let settled = false;
    const report = a.liveRows([t.token], 'reporter').finally(() => (settled = true));
    const turn = () => new Promise((next) => setImmediate(next));
    while (a.kdf.queued < 2 && !settled) await turn(); // its run joins y's in the queue, past the bound
    while (a.kdf.running > 0) {
      for (const run of held) run.release(); // x's, then y's once it runs; the report's ends by itself
      await turn();
    }
    await Promise.all(held.map((run) => run.ended));
    expect((await report).map((r) => r.selector)).toEqual([t.id]);
  });
});
