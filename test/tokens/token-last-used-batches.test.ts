// How a flush of LastUsedRecorder (src/domain/tokens/last-used.ts) reaches the database: a
// hundred tokens' uses per transaction, in one statement each for last uses, addresses and
// pruning, none of them failing; and, when a batch fails (a token deleted since its use), the
// same rules statement by statement. On an in-memory SQLite database with the two tables the
// recorder writes (foreign keys on, as the daemon opens its database), every statement seen
// through knex's query events.
import knex, { type Knex } from 'knex';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LastUsedRecorder } from '../../src/domain/tokens/last-used.js';
import { addressRows, iso, lastUsedAt, numbered, T0 } from '../helpers/token-rows.js';

const clock = { now: () => new Date(T0) };
const ids = (count: number, from = 1) => Array.from({ length: count }, (_, i) => from + i);

/** One statement as the recorder issued it, or its failure. */
type Statement =
  | { kind: 'begin' | 'commit' | 'rollback' }
  | { kind: 'update'; rows: number }
  | { kind: 'insert'; rows: number }
  | { kind: 'delete' }
  | { kind: 'failed'; sql: string };

let db: Knex;
let log: Statement[];

beforeEach(async () => {
  db = knex({
    client: 'sqlite3',
    connection: { filename: ':memory:' },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate: (conn: { run: (sql: string, done: (err: Error | null) => void) => void }, done: () => void) =>
        conn.run('PRAGMA foreign_keys = ON', done),
    },
  });
  await db.schema.createTable('tokens', (t) => {
    t.integer('id').primary();
    t.string('last_used_at', 30);
  });
  await db.schema.createTable('token_addresses', (t) => {
    t.integer('token_id').notNullable().references('id').inTable('tokens').onDelete('CASCADE');
    t.string('address', 64).notNullable();
    t.string('first_seen_at', 30).notNullable();
    t.string('last_seen_at', 30).notNullable();
    t.primary(['token_id', 'address']);
  });
  await db('tokens').insert(ids(250).map((id) => ({ id })));
  log = [];
  db.on('query', (q: { sql: string; bindings?: unknown[] }) => {
    const sql = q.sql.trim().toLowerCase();
    if (sql.startsWith('begin')) log.push({ kind: 'begin' });
    else if (sql.startsWith('commit')) log.push({ kind: 'commit' });
    else if (sql.startsWith('rollback')) log.push({ kind: 'rollback' });
    // Four values per address row.
    else if (sql.startsWith('insert')) log.push({ kind: 'insert', rows: (q.bindings ?? []).length / 4 });
    else if (sql.startsWith('delete')) log.push({ kind: 'delete' });
  });
  db.on('query-response', (rows: unknown, q: { sql: string }) => {
    if (q.sql.trim().toLowerCase().startsWith('update')) log.push({ kind: 'update', rows: Number(rows) });
  });
  db.on('query-error', (_err: unknown, q: { sql: string }) => log.push({ kind: 'failed', sql: q.sql }));
});

afterEach(async () => {
  await db.destroy();
});

/** What one flush of `r` issued. */
async function flushed(r: LastUsedRecorder): Promise<Statement[]> {
  log = [];
  await r.flush();
  return log;
}

const sorted = (rows: Record<string, unknown>) => Object.keys(rows).sort();

describe('a flush', () => {
  it("writes a hundred tokens' first uses and new addresses in one transaction of three statements", async () => {
    const r = new LastUsedRecorder(db, clock);
    for (const id of ids(100)) r.touch(id, null, `192.0.2.${id}`, T0 + id);
    expect(await flushed(r)).toEqual([
      { kind: 'begin' },
      { kind: 'update', rows: 100 },
      { kind: 'insert', rows: 100 },
      { kind: 'delete' },
      { kind: 'commit' },
    ]);
    expect(r.writes).toBe(100);
    for (const id of [1, 50, 100]) {
      expect(await lastUsedAt(db, id)).toBe(iso(T0 + id));
      expect(await addressRows(db, id)).toEqual({ [`192.0.2.${id}`]: [iso(T0 + id), iso(T0 + id)] });
    }
  });

  it('writes more than a hundred tokens a hundred per transaction', async () => {
    const r = new LastUsedRecorder(db, clock);
    for (const id of ids(250)) r.touch(id, null, '203.0.113.1', T0 + id);
    const batch = (tokens: number) => [
      { kind: 'begin' },
      { kind: 'update', rows: tokens },
      { kind: 'insert', rows: tokens },
      { kind: 'delete' },
      { kind: 'commit' },
    ];
    expect(await flushed(r)).toEqual([...batch(100), ...batch(100), ...batch(50)]);
    expect(r.writes).toBe(250);
    for (const id of [1, 100, 101, 200, 201, 250]) {
      expect(await lastUsedAt(db, id)).toBe(iso(T0 + id));
      expect(await addressRows(db, id)).toEqual({ '203.0.113.1': [iso(T0 + id), iso(T0 + id)] });
    }
  });

  it('writes only the last uses when no address is new or due: no address statement, no pruning', async () => {
    const r = new LastUsedRecorder(db, clock);
    for (const id of ids(3)) r.touch(id, null, '', T0);
    expect(await flushed(r)).toEqual([{ kind: 'begin' }, { kind: 'update', rows: 3 }, { kind: 'commit' }]);
    expect(await lastUsedAt(db, 3)).toBe(iso(T0));
  });

  it('writes only the addresses when no last use is due', async () => {
    const r = new LastUsedRecorder(db, clock);
    r.touch(1, null, '', T0);
    await r.flush();
    r.touch(1, null, '192.0.2.1', T0 + 1_000);
    expect(await flushed(r)).toEqual([
      { kind: 'begin' },
      { kind: 'insert', rows: 1 },
      { kind: 'delete' },
      { kind: 'commit' },
    ]);
    expect(await addressRows(db, 1)).toEqual({ '192.0.2.1': [iso(T0 + 1_000), iso(T0 + 1_000)] });
    // The same address a minute later: known, so written without pruning.
    r.touch(1, null, '192.0.2.1', T0 + 30_000);
    r.touch(1, null, '192.0.2.1', T0 + 61_001);
    expect(await flushed(r)).toEqual([
      { kind: 'begin' },
      { kind: 'update', rows: 1 },
      { kind: 'insert', rows: 1 },
      { kind: 'commit' },
    ]);
    expect(await addressRows(db, 1)).toEqual({ '192.0.2.1': [iso(T0 + 1_000), iso(T0 + 61_001)] });
  });

  it('writes more than 400 address rows in inserts of at most 400, in the one transaction', async () => {
    const r = new LastUsedRecorder(db, clock);
    const addresses = [...numbered(55), ...numbered(5, 56).map((a) => a.replace('198.51.100.', '203.0.113.'))];
    for (const id of ids(9)) addresses.forEach((address, i) => r.touch(id, null, address, T0 + i * 1_000));
    expect(await flushed(r)).toEqual([
      { kind: 'begin' },
      { kind: 'update', rows: 9 },
      { kind: 'insert', rows: 400 },
      { kind: 'insert', rows: 140 },
      { kind: 'delete' },
      { kind: 'commit' },
    ]);
    // Each keeps its 20 most recently seen.
    for (const id of [1, 9]) expect(sorted(await addressRows(db, id))).toEqual(addresses.slice(40).sort());
  });

  it("prunes a token's rows after a new address used with a known one", async () => {
    const r = new LastUsedRecorder(db, clock);
    for (const address of numbered(20)) r.touch(1, null, address, T0);
    await r.flush();
    // One of its addresses a minute later, and a new one, in one flush.
    r.touch(1, null, numbered(1)[0] as string, T0 + 61_000);
    r.touch(1, null, '203.0.113.1', T0 + 61_000);
    await r.flush();
    // 21 rows: the last by address of the 19 seen at T0 goes.
    expect(sorted(await addressRows(db, 1))).toEqual([...numbered(19), '203.0.113.1']);
  });

  it('moves no address back: a use seen earlier by another daemon and flushed later', async () => {
    const [a, b] = [new LastUsedRecorder(db, clock), new LastUsedRecorder(db, clock)];
    a.touch(1, null, '192.0.2.1', T0 + 30_000);
    await a.flush();
    b.touch(1, null, '192.0.2.1', T0);
    await b.flush();
    expect(await addressRows(db, 1)).toEqual({ '192.0.2.1': [iso(T0 + 30_000), iso(T0 + 30_000)] });
  });
});

describe('a flush whose batch fails (a token deleted since its use)', () => {
  it('writes the others statement by statement, with the same rules', async () => {
    const [a, other] = [new LastUsedRecorder(db, clock), new LastUsedRecorder(db, clock)];
    // Token 2: 20 addresses known to a, then one new from another daemon (pruned to 20: a's
    // last by address goes). Token 3: 20 rows from the other daemon. Token 4's address was last
    // seen by the other daemon after a's use of it.
    for (const address of numbered(20)) a.touch(2, null, address, T0);
    await a.flush();
    for (const address of numbered(20)) other.touch(3, null, address, T0);
    other.touch(2, null, '203.0.113.2', T0 + 1_000);
    other.touch(4, null, '192.0.2.4', T0 + 90_000);
    await other.flush();
    await db('tokens')
      .where('id', 5)
      .update({ last_used_at: iso(T0 + 90_000) });
    await db('tokens')
      .where('id', 6)
      .update({ last_used_at: iso(T0 + 10_000) });

    a.touch(1, null, '192.0.2.1', T0 + 70_000); // deleted below
    // Known to a: no prune (the first still stored, the last pruned by the other daemon).
    a.touch(2, null, numbered(1)[0] as string, T0 + 70_000);
    a.touch(2, null, numbered(1, 20)[0] as string, T0 + 70_000);
    a.touch(3, null, '203.0.113.3', T0 + 70_000); // new: pruned to 20
    a.touch(4, null, '192.0.2.4', T0 + 70_000); // stays at the other daemon's later use
    a.touch(5, null, `${'h'.repeat(70)}.example`, T0 + 70_000); // stored later: not moved back
    a.touch(6, null, '', T0 + 70_000); // stored exactly 60 seconds before: not written
    a.touch(7, null, '', T0 + 70_000); // never used: written
    await db('tokens').where('id', 1).delete();

    const statements = await flushed(a);
    expect(statements.slice(0, 2)).toEqual([{ kind: 'begin' }, { kind: 'update', rows: 3 }]);
    expect(statements.filter((s) => s.kind === 'failed')).toHaveLength(2); // the batch's insert, token 1's
    expect(statements.filter((s) => s.kind === 'rollback')).toHaveLength(1);
    expect(statements.filter((s) => s.kind === 'update')).toEqual([
      { kind: 'update', rows: 3 }, // rolled back
      // Tokens 1 (deleted) to 7, one by one.
      { kind: 'update', rows: 0 },
      { kind: 'update', rows: 1 },
      { kind: 'update', rows: 1 },
      { kind: 'update', rows: 0 },
      { kind: 'update', rows: 0 },
      { kind: 'update', rows: 0 },
      { kind: 'update', rows: 1 },
    ]);

    expect(await addressRows(db, 1)).toEqual({});
    expect(await lastUsedAt(db, 2)).toBe(iso(T0 + 70_000));
    expect(sorted(await addressRows(db, 2))).toEqual([...numbered(20), '203.0.113.2']);
    expect((await addressRows(db, 2))[numbered(1)[0] as string]).toEqual([iso(T0), iso(T0 + 70_000)]);
    expect((await addressRows(db, 2))[numbered(1, 20)[0] as string]).toEqual([iso(T0 + 70_000), iso(T0 + 70_000)]);
    expect(sorted(await addressRows(db, 3))).toEqual([...numbered(19), '203.0.113.3']);
    expect(await addressRows(db, 4)).toEqual({ '192.0.2.4': [iso(T0 + 90_000), iso(T0 + 90_000)] });
    expect(await lastUsedAt(db, 5)).toBe(iso(T0 + 90_000));
    expect(await addressRows(db, 5)).toEqual({ ['h'.repeat(64)]: [iso(T0 + 70_000), iso(T0 + 70_000)] });
    expect(await lastUsedAt(db, 6)).toBe(iso(T0 + 10_000));
    expect(await lastUsedAt(db, 7)).toBe(iso(T0 + 70_000));
  });
});
