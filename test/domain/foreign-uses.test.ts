// A use of an address-bound token from elsewhere is audited once per token, address and UTC day
// (src/domain/foreign-uses.ts), however often it is refused: the day is the clock's, pinned here
// (the daemon's own clock cannot be pinned from outside; test/auth/token-scopes.test.ts sees the
// same rule through HTTP within one day).
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordForeignUse } from '../../src/domain/foreign-uses.js';
import { createToken, type Sandbox, sandboxWithDb, closeSandboxWithDb } from '../helpers/cli.js';

let box: Sandbox;
let db: Knex;

beforeAll(async () => {
  ({ box, db } = await sandboxWithDb({ root: 'superuser', bot: 'editor' }));
});
afterAll(() => closeSandboxWithDb(box, db));

const at = (iso: string) => ({ db, clock: { now: () => new Date(iso) } });

describe('recordForeignUse', () => {
  it('writes one audit entry per token, address and UTC day', async () => {
    const t = await createToken(box, 'bot', 'bound', 'root', ['--allow-from', '192.0.2.1']);
    const row = await db('tokens').where('selector', t.id).first<{ id: number }>('id');
    const token = { tokenId: row.id, selector: t.id, username: 'bot' };
    expect(await recordForeignUse(at('2026-12-03T08:00:00Z'), token, '203.0.113.9')).toBe(true);
    expect(await recordForeignUse(at('2026-12-03T23:59:59Z'), token, '203.0.113.9')).toBe(false);
    expect(await recordForeignUse(at('2026-12-03T23:59:59Z'), token, '203.0.113.10')).toBe(true);
    expect(await recordForeignUse(at('2026-12-04T00:00:00Z'), token, '203.0.113.9')).toBe(true);
    // Two daemons at once: one entry.
    const both = await Promise.all([
      recordForeignUse(at('2026-12-05T10:00:00Z'), token, '203.0.113.9'),
      recordForeignUse(at('2026-12-05T10:00:00Z'), token, '203.0.113.9'),
    ]);
    expect(both.filter(Boolean)).toHaveLength(1);
    const entries = await db('audit_log').where('action', 'token.refuse-address').orderBy('id').select('at', 'actor');
    expect(entries).toEqual([
      { at: '2026-12-03T08:00:00.000Z', actor: 'address:203.0.113.9' },
      { at: '2026-12-03T23:59:59.000Z', actor: 'address:203.0.113.10' },
      { at: '2026-12-04T00:00:00.000Z', actor: 'address:203.0.113.9' },
      { at: '2026-12-05T10:00:00.000Z', actor: 'address:203.0.113.9' },
    ]);
    // The rows go with the token.
    expect((await box.run(['token', 'revoke', t.id, '--as', 'root'])).code).toBe(0);
    expect((await box.run(['token', 'prune', '--as', 'root', '--yes'])).code).toBe(0);
    const left = await db('token_address_refusals').where('token_id', row.id).count({ n: '*' }).first();
    expect(Number((left as { n: number | string }).n)).toBe(0);
  });
});
