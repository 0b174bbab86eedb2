// "Last used" and the addresses of uses (src/domain/tokens/last-used.ts) through LastUsedRecorder
// and storedLastUsed, on the sandbox's database opened as the daemon opens it (foreign keys on):
// what touch() answers, what a flush writes (and does not), how two daemons sharing a database
// coalesce, how the address rows of a token are bounded, and the flush timer. Uses are given
// their instant (touch's `now`), so no test waits for a minute to pass.
import knex, { type Knex } from 'knex';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connect.js';
import { KEPT_ADDRESSES, LastUsedRecorder, storedLastUsed } from '../../src/domain/tokens/last-used.js';
import { childEnv, createAccounts, createSandbox, createToken, type Sandbox } from '../helpers/cli.js';
import { eventually, until } from '../helpers/until.js';
import { addressRows, iso, lastUsedAt, numbered, T0 } from '../helpers/token-rows.js';

const clock = { now: () => new Date(T0) };

let box: Sandbox;
let db: Knex;

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, { root: 'superuser', bot: 'editor' });
  db = await openDatabase(loadConfig(box.configFile, childEnv(box.env), box.dir).database);
});

afterAll(async () => {
  await db?.destroy();
  await box?.cleanup();
});

/** A new token of `bot`: its row id. */
async function tokenId(name: string): Promise<number> {
  const t = await createToken(box, 'bot', name, 'root');
  const row = await db('tokens').where('selector', t.id).first<{ id: number }>('id');
  return Number(row.id);
}

const sorted = (rows: Record<string, unknown>) => Object.keys(rows).sort();
describe('the last use of a token', () => {
  it('is written at the flush after its first use, and again only when more than 60 seconds later', async () => {
    const id = await tokenId('first use');
    const r = new LastUsedRecorder(db, clock);
    expect(r.touch(id, null, '', T0)).toBe(T0);
    expect(r.touch(id, null, '', T0 + 30_000)).toBe(T0);
    expect(r.touch(id, null, '', T0 + 60_000)).toBe(T0);
    expect(await lastUsedAt(db, id)).toBeNull();
    await r.flush();
    expect(await lastUsedAt(db, id)).toBe(iso(T0));
    expect(r.writes).toBe(1);

    expect(r.touch(id, null, '', T0 + 60_001)).toBe(T0 + 60_001);
    await r.flush();
    expect(await lastUsedAt(db, id)).toBe(iso(T0 + 60_001));
    expect(r.writes).toBe(2);
    // Nothing pending: a flush writes nothing.
    await r.flush();
    expect(r.writes).toBe(2);
  });

  it('starts from the stored value: a use within 60 seconds of it is not written', async () => {
    const id = await tokenId('stored use');
    await db('tokens')
      .where('id', id)
      .update({ last_used_at: iso(T0) });
    expect(storedLastUsed(iso(T0))).toBe(T0);
    expect(storedLastUsed(null)).toBe(Number.NEGATIVE_INFINITY);
    const r = new LastUsedRecorder(db, clock);
    expect(r.touch(id, iso(T0), '', T0 + 60_000)).toBe(T0);
    await r.flush();
    expect(r.writes).toBe(0);
    expect(r.touch(id, iso(T0), '', T0 + 60_001)).toBe(T0 + 60_001);
    await r.flush();
    expect(r.writes).toBe(1);
    expect(await lastUsedAt(db, id)).toBe(iso(T0 + 60_001));
  });

  it('moves forward only by more than 60 seconds when two daemons write it', async () => {
    const id = await tokenId('two daemons');
    const a = new LastUsedRecorder(db, clock);
    const b = new LastUsedRecorder(db, clock);
    a.touch(id, null, '', T0 + 30_000);
    await a.flush();
    // b saw an earlier use and flushes later: the stored value does not go back.
    b.touch(id, null, '', T0);
    await b.flush();
    expect(b.writes).toBe(1);
    expect(await lastUsedAt(db, id)).toBe(iso(T0 + 30_000));
    // 50 seconds after the stored value: b issues its UPDATE, which changes nothing.
    expect(b.touch(id, null, '', T0 + 80_000)).toBe(T0 + 80_000);
    await b.flush();
    expect(b.writes).toBe(2);
    expect(await lastUsedAt(db, id)).toBe(iso(T0 + 30_000));
    // More than 60 seconds after it: written.
    b.touch(id, null, '', T0 + 140_001);
    await b.flush();
    expect(await lastUsedAt(db, id)).toBe(iso(T0 + 140_001));
  });

  it('is forgotten for the least recently used token past maxTracked: its next use is written again', async () => {
    const [one, two, three] = [
      await tokenId('tracked one'),
      await tokenId('tracked two'),
      await tokenId('tracked three'),
    ];
    const r = new LastUsedRecorder(db, clock, 2);
    r.touch(one, null, '', T0);
    r.touch(two, null, '', T0);
    await r.flush();
    expect(r.writes).toBe(2);
    expect(r.touch(one, null, '', T0 + 1_000)).toBe(T0);
    // A third token: `two`, used least recently, is forgotten.
    r.touch(three, null, '', T0 + 2_000);
    expect(r.touch(two, null, '', T0 + 3_000)).toBe(T0 + 3_000);
    await r.flush();
    // One more UPDATE for `two`, which the database's own 60-second rule makes change nothing.
    expect(r.writes).toBe(4);
    expect(await lastUsedAt(db, two)).toBe(iso(T0));
    expect(await lastUsedAt(db, three)).toBe(iso(T0 + 2_000));
  });

  it('counts a token with its addresses against maxTracked: new addresses make room too', async () => {
    const [one, two] = [await tokenId('sized one'), await tokenId('sized two')];
    const r = new LastUsedRecorder(db, clock, 3);
    r.touch(one, null, '192.0.2.1', T0);
    r.touch(one, null, '192.0.2.2', T0 + 1_000); // `one` and two addresses: 3, the bound
    r.touch(two, null, '', T0 + 2_000); // 4 > 3: `one`, used least recently, is forgotten
    await r.flush();
    expect(r.touch(one, null, '', T0 + 3_000)).toBe(T0 + 3_000);
  });
});

describe('the addresses a token was used from', () => {
  it('are written with their first and last use; a known one again only when more than 60 seconds later', async () => {
    const id = await tokenId('one address');
    const r = new LastUsedRecorder(db, clock);
    r.touch(id, null, '', T0);
    r.touch(id, null, '198.51.100.1', T0 + 1_000);
    await r.flush();
    // No address (a use the pipeline could not place) makes no row.
    expect(await addressRows(db, id)).toEqual({ '198.51.100.1': [iso(T0 + 1_000), iso(T0 + 1_000)] });
    r.touch(id, null, '198.51.100.1', T0 + 61_000);
    await r.flush();
    expect(await addressRows(db, id)).toEqual({ '198.51.100.1': [iso(T0 + 1_000), iso(T0 + 1_000)] });
    r.touch(id, null, '198.51.100.1', T0 + 61_001);
    await r.flush();
    expect(await addressRows(db, id)).toEqual({ '198.51.100.1': [iso(T0 + 1_000), iso(T0 + 61_001)] });
  });

  it('are written once per flush, a known one at its first use within the minute', async () => {
    const id = await tokenId('two addresses');
    const r = new LastUsedRecorder(db, clock);
    r.touch(id, null, '192.0.2.10', T0);
    r.touch(id, null, '192.0.2.20', T0 + 1_000);
    r.touch(id, null, '192.0.2.10', T0 + 2_000);
    await r.flush();
    expect(await addressRows(db, id)).toEqual({
      '192.0.2.10': [iso(T0), iso(T0)],
      '192.0.2.20': [iso(T0 + 1_000), iso(T0 + 1_000)],
    });
  });

  it("are cut to the column's 64 characters", async () => {
    const id = await tokenId('long address');
    const r = new LastUsedRecorder(db, clock);
    r.touch(id, null, `${'h'.repeat(70)}.example`, T0);
    await r.flush();
    expect(sorted(await addressRows(db, id))).toEqual(['h'.repeat(64)]);
  });

  it('are kept for the 20 most recently seen per token, ties by address', async () => {
    expect(KEPT_ADDRESSES).toBe(20);
    const [timed, tied] = [await tokenId('timed addresses'), await tokenId('tied addresses')];
    const r = new LastUsedRecorder(db, clock);
    // The newest sort last: keeping the first rows in any index's order would keep the oldest.
    numbered(25).forEach((address, i) => r.touch(timed, null, address, T0 + i * 1_000));
    for (const address of numbered(25)) r.touch(tied, null, address, T0);
    await r.flush();
    expect(sorted(await addressRows(db, timed))).toEqual(numbered(20, 6));
    expect(sorted(await addressRows(db, tied))).toEqual(numbered(20));
  });

  it('are pruned after a new address, not after a known one coming back', async () => {
    const id = await tokenId('pruned by new');
    const a = new LastUsedRecorder(db, clock);
    const b = new LastUsedRecorder(db, clock);
    for (const address of numbered(20)) a.touch(id, null, address, T0);
    await a.flush();
    // Another daemon's new address: 21 rows, the last of the 20 tied ones goes.
    b.touch(id, null, '203.0.113.1', T0 + 10_000);
    await b.flush();
    expect(sorted(await addressRows(db, id))).toEqual([...numbered(19), '203.0.113.1']);
    // Known to a, written again a minute later: back without a prune (the bound is kept by the
    // daemon that sees an address first, so a known one costs no DELETE).
    a.touch(id, null, numbered(1, 20)[0] as string, T0 + 61_000);
    await a.flush();
    expect(sorted(await addressRows(db, id))).toEqual([...numbered(20), '203.0.113.1']);
    // The next new address restores the bound: two of the tied ones go, the last by address.
    a.touch(id, null, '203.0.113.2', T0 + 62_000);
    await a.flush();
    expect(sorted(await addressRows(db, id))).toEqual([
      ...numbered(17),
      ...numbered(1, 20),
      '203.0.113.1',
      '203.0.113.2',
    ]);
  });

  it('are pruned after an address new to this daemon even when it was used again before the flush', async () => {
    const id = await tokenId('new twice');
    const a = new LastUsedRecorder(db, clock);
    const b = new LastUsedRecorder(db, clock);
    for (const address of numbered(20)) b.touch(id, null, address, T0);
    await b.flush();
    a.touch(id, null, '203.0.113.9', T0 + 1_000);
    a.touch(id, null, '203.0.113.9', T0 + 62_000);
    await a.flush();
    expect(sorted(await addressRows(db, id))).toEqual([...numbered(19), '203.0.113.9']);
  });

  it('are forgotten in memory past 64 for a token: a known one is then written again', async () => {
    const id = await tokenId('many addresses');
    const r = new LastUsedRecorder(db, clock);
    for (const address of numbered(64)) r.touch(id, null, address, T0);
    await r.flush();
    expect(sorted(await addressRows(db, id))).toEqual(numbered(20));
    // The 65th makes this process forget the 64 it knew: the first is new again.
    r.touch(id, null, '203.0.113.65', T0 + 1_000);
    r.touch(id, null, numbered(1)[0] as string, T0 + 2_000);
    await r.flush();
    expect((await addressRows(db, id))[numbered(1)[0] as string]).toEqual([iso(T0), iso(T0 + 2_000)]);
  });

  it('are remembered when a known one comes back, even with 64 of them', async () => {
    const id = await tokenId('known comes back');
    const [first, second] = numbered(2) as [string, string];
    const r = new LastUsedRecorder(db, clock);
    r.touch(id, null, first, T0);
    for (const address of numbered(63, 2)) r.touch(id, null, address, T0 + 30_000);
    await r.flush();
    // The first again a minute later: written. The second 32 seconds after its use: not.
    r.touch(id, null, first, T0 + 61_000);
    r.touch(id, null, second, T0 + 62_000);
    await r.flush();
    const rows = await addressRows(db, id);
    expect(rows[first]).toEqual([iso(T0 + 61_000), iso(T0 + 61_000)]);
    expect(rows[second]).toEqual([iso(T0 + 30_000), iso(T0 + 30_000)]);
  });

  it('of a token deleted since its use are dropped, and the flush succeeds', async () => {
    const [gone, kept] = [await tokenId('deleted meanwhile'), await tokenId('kept meanwhile')];
    const r = new LastUsedRecorder(db, clock);
    r.touch(gone, null, '192.0.2.77', T0);
    r.touch(kept, null, '192.0.2.78', T0);
    await db('tokens').where('id', gone).delete();
    await r.flush();
    expect(await addressRows(db, gone)).toEqual({});
    expect(await addressRows(db, kept)).toEqual({ '192.0.2.78': [iso(T0), iso(T0)] });
  });
});

describe('a database refusing a write', () => {
  let refusing: Knex;
  beforeAll(async () => {
    // A database of its own whose token_addresses refuses one address (a CHECK constraint): a
    // refusal other than the foreign key of a deleted token, as a full disk or a lock timeout.
    refusing = knex({
      client: 'sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
      pool: { min: 1, max: 1 },
    });
    await refusing.schema.createTable('tokens', (t) => {
      t.integer('id').primary();
      t.string('last_used_at', 30);
    });
    await refusing.schema.createTable('token_addresses', (t) => {
      t.integer('token_id').notNullable();
      t.string('address', 64).notNullable().checkNotIn(['192.0.2.1']);
      t.string('first_seen_at', 30).notNullable();
      t.string('last_seen_at', 30).notNullable();
      t.primary(['token_id', 'address']);
    });
    await refusing('tokens').insert([{ id: 1 }, { id: 2 }]);
  });
  afterAll(async () => {
    await refusing?.destroy();
  });

  it('fails the flush that met it, and the next flush still runs', async () => {
    const r = new LastUsedRecorder(refusing, clock);
    r.touch(1, null, '192.0.2.1', T0);
    await expect(r.flush()).rejects.toThrow(/CHECK constraint failed/);
    r.touch(2, null, '192.0.2.2', T0);
    await r.flush();
    expect(await refusing('tokens').where('id', 2).first('last_used_at')).toEqual({ last_used_at: iso(T0) });
    expect(await refusing('token_addresses').select('token_id', 'address')).toEqual([
      { token_id: 2, address: '192.0.2.2' },
    ]);
  });
});

describe('the flush timer', () => {
  // Only the interval is faked: the database's own timers stay real.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes the uses once a second from start() to stop(), which writes what is left and leaves no timer', async () => {
    const id = await tokenId('timer');
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const r = new LastUsedRecorder(db, clock);
    r.start();
    r.start();
    expect(vi.getTimerCount()).toBe(1);
    r.touch(id, null, '', T0);
    vi.advanceTimersByTime(1_000);
    await until(() => r.writes === 1, 'the first timed flush');
    expect(await lastUsedAt(db, id)).toBe(iso(T0));
    r.touch(id, null, '', T0 + 61_000);
    vi.advanceTimersByTime(1_000);
    await until(() => r.writes === 2, 'the second timed flush');
    r.touch(id, null, '', T0 + 122_000);
    await r.stop();
    expect(vi.getTimerCount()).toBe(0);
    expect(r.writes).toBe(3);
    expect(await lastUsedAt(db, id)).toBe(iso(T0 + 122_000));
    // Started again after a stop: a timer again.
    r.start();
    expect(vi.getTimerCount()).toBe(1);
    r.touch(id, null, '', T0 + 183_000);
    vi.advanceTimersByTime(1_000);
    await until(() => r.writes === 4, 'a timed flush after a restart');
    await r.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('adds no flush on a tick while one runs: a use taken meanwhile waits for the next tick', async () => {
    const [one, two] = [await tokenId('tick one'), await tokenId('tick two')];
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const r = new LastUsedRecorder(db, clock);
    r.start();
    r.touch(one, null, '', T0);
    vi.advanceTimersByTime(1_000);
    // One turn of the microtask queue: the timed flush has taken the use and waits on its UPDATE.
    await Promise.resolve();
    expect(r.writes).toBe(1);
    r.touch(two, null, '', T0);
    vi.advanceTimersByTime(1_000);
    // Once the first flush is written (our read queues behind its UPDATE), the tick that came
    // while it ran has started nothing: `two` waits.
    await eventually(async () => (await lastUsedAt(db, one)) === iso(T0), 'the first timed flush');
    expect(r.writes).toBe(1);
    vi.advanceTimersByTime(1_000);
    await until(() => r.writes === 2, 'the next timed flush');
    await r.stop();
    expect(await lastUsedAt(db, two)).toBe(iso(T0));
  });
});
