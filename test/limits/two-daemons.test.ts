// Two daemons on one database (issue 34): a leaked token reported to one is refused by both on
// their next request (SQLite: the signal file; PostgreSQL: NOTIFY); on PostgreSQL a rate limit is
// one count for both (the rate_limits table), also for requests that arrive at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Reply } from '../helpers/api.js';
import { createAccounts, createSandbox, createToken, IS_PG, withSandboxDb, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { logEntries, startDaemon, type RunningDaemon } from '../helpers/daemon.js';

let box: Sandbox;
let a: RunningDaemon;
let b: RunningDaemon;

beforeAll(async () => {
  box = await createSandbox();
  await patchConfig(box, { limits: { tokenRate: '6/hour' } });
  await createAccounts(box, { root: 'superuser', reader: 'user' });
  [a, b] = await Promise.all([startDaemon(box), startDaemon(box)]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await box?.cleanup();
});

const apiA = client(() => a);
const apiB = client(() => b);

describe(`two daemons on one ${IS_PG ? 'PostgreSQL' : 'SQLite'} database`, () => {
  it('both refuse a token reported to one of them, on their next request', async () => {
    const leaked = await createToken(box, 'reader', 'leaked', 'root');
    expect((await apiA.get('/api/objects', leaked.token)).status).toBe(200);
    expect((await apiB.get('/api/objects', leaked.token)).status).toBe(200);
    expect((await apiA.post('/api/tokens/revoke', { credentials: [leaked.token] })).status).toBe(202);
    expect((await apiB.get('/api/objects', leaked.token)).status).toBe(401);
    expect((await apiA.get('/api/objects', leaked.token)).status).toBe(401);
  });
});

describe.skipIf(!IS_PG)('a rate limit shared by two PostgreSQL daemons (SQLite daemons count each their own)', () => {
  const remaining = (r: Reply) => Number(/;r=(\d+);/.exec(r.headers.get('ratelimit') ?? '')?.[1]);

  it('counts one after the other across both daemons', async () => {
    const t = await createToken(box, 'reader', 'alternating', 'root');
    const answers: Reply[] = [];
    for (let i = 0; i < 8; i++) answers.push(await (i % 2 === 0 ? apiA : apiB).get('/api/objects', t.token));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    expect(answers.slice(0, 6).map(remaining)).toEqual([5, 4, 3, 2, 1, 0]);
    const rows = await withSandboxDb(box, (db) => db('rate_limits').where('key', 'like', 'token:6/hour:%').select('*'));
    expect(rows.length).toBeGreaterThan(0);
  });

  it('admits exactly the limit of requests that arrive at both at once', async () => {
    const t = await createToken(box, 'reader', 'concurrent', 'root');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? apiA : apiB).get('/api/objects', t.token)),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(6);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(14);
  });

  it('counts in each daemon while the shared counts cannot be read, with one warning and no 5xx', async () => {
    const t = await createToken(box, 'reader', 'table gone', 'root');
    await withSandboxDb(box, (db) => db.schema.dropTable('rate_limits'));
    try {
      const answers: Reply[] = [];
      for (let i = 0; i < 8; i++) answers.push(await apiA.get('/api/objects', t.token));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
      expect(answers.slice(0, 6).map(remaining)).toEqual([5, 4, 3, 2, 1, 0]);
      const warnings = logEntries(a).filter((l) => String(l.msg).startsWith('rate limit counts could not be read'));
      expect(warnings).toHaveLength(1);
    } finally {
      // As the migration made it (the schema tests compare it with a fresh one elsewhere).
      await withSandboxDb(box, (db) =>
        db.raw(
          'CREATE UNLOGGED TABLE rate_limits (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)',
        ),
      );
    }
  });
});
