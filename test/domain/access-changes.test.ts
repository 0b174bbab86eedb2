// Rights changes move the access generation (src/domain/access-changes.ts), through the doors
// that make them (the CLI): revoking, rotating and narrowing (token update) a token, changing a role, deleting an account,
// switching public_api or public_access. What grants nothing cached (a new token, token_max_days,
// a revoke of a revoked token) leaves it alone.
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, type Sandbox, sandboxWithDb, closeSandboxWithDb } from '../helpers/cli.js';

let box: Sandbox;
let db: Knex;

beforeAll(async () => {
  ({ box, db } = await sandboxWithDb({ root: 'superuser', reader: 'user', other: 'user' }));
});

afterAll(() => closeSandboxWithDb(box, db));

const generation = async () =>
  Number((await db('auth_state').where('id', 1).first<{ generation: number | string }>('generation')).generation);

/** How far `args` moved the generation (the command must succeed). */
async function moved(args: string[]): Promise<number> {
  const before = await generation();
  const r = await box.run([...args, '--as', 'root']);
  expect(r.code, r.stderr).toBe(0);
  return (await generation()) - before;
}

describe('the access generation', () => {
  it('moves once for every change of rights', async () => {
    const t = await createToken(box, 'reader', 'to revoke', 'root');
    const u = await createToken(box, 'reader', 'to rotate', 'root');
    expect(await moved(['token', 'revoke', t.id])).toBe(1);
    expect(await moved(['token', 'rotate', u.id])).toBe(1);
    expect(await moved(['account', 'set-role', 'reader', 'editor'])).toBe(1);
    expect(await moved(['account', 'delete', 'other', '--yes'])).toBe(1);
    expect(await moved(['settings', 'set', 'public_api', 'on'])).toBe(1);
    expect(await moved(['settings', 'set', 'public_access', 'off'])).toBe(1);
    const v = await createToken(box, 'reader', 'to narrow', 'root');
    expect(await moved(['token', 'update', v.id, '--scope', 'read'])).toBe(1);
    expect(await moved(['token', 'update', v.id, '--allow-from', '192.0.2.0/24', '--rate-limit', '60/minute'])).toBe(1);
  });

  it('stays for what grants nothing a daemon has cached', async () => {
    const t = await createToken(box, 'reader', 'stays', 'root');
    expect(await moved(['token', 'create', 'reader', '--name', 'new one'])).toBe(0);
    expect(await moved(['settings', 'set', 'token_max_days', '30'])).toBe(0);
    expect(await moved(['token', 'revoke', t.id])).toBe(1);
    expect(await moved(['token', 'revoke', t.id])).toBe(0); // already revoked: nothing changed
    expect(await moved(['account', 'set-role', 'reader', 'editor'])).toBe(0); // the role it has
    const u = await createToken(box, 'reader', 'narrow from the start', 'root', ['--scope', 'read']);
    expect(await moved(['token', 'update', u.id, '--scope', 'read'])).toBe(0); // the scopes it has
  });
});
