// A token describing itself (src/domain/tokens/self.ts, behind GET /api/token) through
// describeSelf, on a sandbox database administered with the CLI: its fields, its last use as the
// later of the stored one (written here as a daemon's flush writes it) and this request's, and a
// token deleted between its admission and the read. The HTTP side is test/auth/token-self.test.ts.
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import { describeSelf } from '../../src/domain/tokens/self.js';
import { createToken, type Sandbox, sandboxWithDb, closeSandboxWithDb } from '../helpers/cli.js';

const NOW = '2026-11-20T12:00:00.000Z';
const clock = { now: () => new Date(NOW) };
let box: Sandbox;
let db: Knex;

beforeAll(async () => {
  ({ box, db } = await sandboxWithDb({ root: 'superuser', ed: 'editor', gone: 'user' }));
});

afterAll(() => closeSandboxWithDb(box, db));

describe('describeSelf', () => {
  it('answers the token with the role judged now and what narrows it, never a value or hash', async () => {
    const t = await createToken(box, 'ed', 'nightly', 'root', ['--expires', '2027-01-31', '--scope', 'read'], {
      now: NOW,
    });
    const self = await describeSelf({ db, clock }, { selector: t.id, role: 'user', lastUsed: -Infinity });
    expect(self).toEqual({
      id: t.id,
      name: 'nightly',
      kind: 'regular',
      account: 'ed',
      role: 'user',
      created: t.created,
      expires: '2027-01-31',
      last_used: null,
      scopes: ['read'],
      allow_from: null,
      rate_limit: null,
    });
    expect(JSON.stringify(self)).not.toContain(t.token.slice(12, 52));
  });

  it('shows as last use the later of the stored one and this request', async () => {
    const t = await createToken(box, 'ed', 'used', 'root', [], { now: NOW });
    await db('tokens').where('selector', t.id).update({ last_used_at: '2026-11-19T08:00:00.000Z' });
    const at = (lastUsed: number) => describeSelf({ db, clock }, { selector: t.id, role: 'editor', lastUsed });
    expect((await at(-Infinity)).last_used).toBe('2026-11-19T08:00:00.000Z');
    expect((await at(Date.parse('2026-11-18T00:00:00.000Z'))).last_used).toBe('2026-11-19T08:00:00.000Z');
    expect((await at(Date.parse(NOW))).last_used).toBe(NOW);
  });

  it('refuses a token deleted since its admission (its account deleted) as not found', async () => {
    const t = await createToken(box, 'gone', 'deleted meanwhile', 'root', [], { now: NOW });
    expect((await box.run(['account', 'delete', 'gone', '--yes', '--as', 'root'])).code).toBe(0);
    const err: unknown = await describeSelf(
      { db, clock },
      { selector: t.id, role: 'user', lastUsed: Date.parse(NOW) },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAppError(err) && err.kind).toBe('not_found');
    expect((err as Error).message).toBe('the token no longer exists');
  });
});
