// The authenticator (src/domain/tokens/authenticate.ts) with the two forms of value side by side:
// a legacy value imported with the CLI is verified like a new one, and values verified at the
// same moment each get their own answer. (A file of its own beside authenticator.test.ts.)
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/domain/tokens/authenticate.js';
import { createToken, legacyValue, type Sandbox, sandboxWithDb, closeSandboxWithDb } from '../helpers/cli.js';

let box: Sandbox;
let db: Knex;
const clock = { now: () => new Date('2026-11-20T12:00:00.000Z') };

beforeAll(async () => {
  ({ box, db } = await sandboxWithDb({ root: 'superuser', reader: 'user', ed: 'editor' }));
});

afterAll(() => closeSandboxWithDb(box, db));

describe('a legacy value', () => {
  it('imported with the CLI is verified, and one character off is refused', async () => {
    const value = legacyValue();
    const file = path.join(box.dir, 'legacy.csv');
    await writeFile(file, `username,token\nreader,${value}\n`);
    const imported = await box.run(['token', 'import-legacy', file, '--as', 'root']);
    expect(imported.code, imported.stderr).toBe(0);
    const a = new Authenticator(db, clock, null);
    expect(await a.authenticate(value, '1', 'c')).toMatchObject({
      ok: true,
      principal: { selector: value.slice(0, 8), username: 'reader', role: 'user' },
    });
    const other = value.at(-1) === 'a' ? 'b' : 'a';
    expect(await a.authenticate(`${value.slice(0, -1)}${other}`, '1', 'c')).toEqual({
      ok: false,
      reason: 'mismatch',
      selector: value.slice(0, 8),
    });
    expect(await a.authenticate(`${value}a`, '1', 'c')).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('values verified at the same moment', () => {
  it('each get the answer for their own token', async () => {
    const [x, y] = await Promise.all([
      createToken(box, 'reader', 'at once x', 'root'),
      createToken(box, 'ed', 'at once y', 'root'),
    ]);
    const a = new Authenticator(db, clock, null);
    const [ax, ay] = await Promise.all([a.authenticate(x.token, '1', 'c'), a.authenticate(y.token, '1', 'c')]);
    expect(ax).toMatchObject({ ok: true, principal: { selector: x.id, username: 'reader' } });
    expect(ay).toMatchObject({ ok: true, principal: { selector: y.id, username: 'ed', role: 'editor' } });
  });
});
