// Issue 10, finding 8: during a leak the value is what you have. `token revoke -` and
// `token lookup -` read it from stdin; it never appears in output or errors, and a value on
// the command line is refused (shell history, ps).
import { beforeAll, describe, expect, it } from 'vitest';
import { allTokens, createAccounts, createToken, lines, useSandbox, type TokenJson } from '../helpers/cli.js';

const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { alice: 'admin', bob: 'user', carol: 'user' });
});

const noValue = (text: string, value: string) => {
  expect(text).not.toContain(value);
  expect(text).not.toContain(value.slice(12, 52)); // the secret
};

describe('token lookup -', () => {
  it('names the token a value belongs to, without printing the value', async () => {
    const t = await createToken(cli, 'bob', 'leaky', 'alice');
    const r = await cli.run(['token', 'lookup', '-', '--json'], { input: `${t.token}\n` });
    expect(r.code, r.stderr).toBe(0);
    const found = JSON.parse(r.stdout) as TokenJson;
    expect(found).toMatchObject({ id: t.id, account: 'bob', name: 'leaky', status: 'active' });
    noValue(r.stdout + r.stderr, t.token);
    const table = await cli.run(['token', 'lookup', '-'], { input: t.token });
    expect(table.code).toBe(0);
    expect(lines(table.stdout)[1]?.split(/ {2,}/).slice(0, 3)).toEqual([t.id, 'bob', 'leaky']);
  });

  it('finds nothing for a made-up value with a real id (the secret is checked)', async () => {
    const t = await createToken(cli, 'bob', 'real id', 'alice');
    const { checksum } = await import('../../src/domain/tokens/format.js');
    const secret = 'x'.repeat(40);
    const forged = `arc_${t.id}${secret}${checksum(t.id + secret)}`;
    const r = await cli.run(['token', 'lookup', '-'], { input: forged });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no token of this installation has that value/);
    noValue(r.stderr, forged);
  });

  it('refuses anything but "-" without quoting it, and an empty stdin', async () => {
    const t = await createToken(cli, 'bob', 'as argument', 'alice');
    const r = await cli.run(['token', 'lookup', t.token]);
    expect(r.code).toBe(2);
    noValue(r.stderr, t.token);
    const empty = await cli.run(['token', 'lookup', '-'], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/no token value on standard input/);
  });

  it('shows a non-admin only its own tokens', async () => {
    const t = await createToken(cli, 'bob', 'not carols', 'alice');
    const r = await cli.run(['token', 'lookup', '-', '--as', 'carol'], { input: t.token });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sees only its own tokens/);
  });
});

describe('token revoke -', () => {
  it('revokes the token whose value is on stdin, never printing the value', async () => {
    const t = await createToken(cli, 'bob', 'leaked', 'alice');
    const r = await cli.run(['token', 'revoke', '-', '--as', 'alice', '--json'], { input: `${t.token}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: t.id, status: 'revoked' });
    noValue(r.stdout + r.stderr, t.token);
    expect((await allTokens(cli)).find((x) => x.id === t.id)?.status).toBe('revoked');
    const audit = await cli.json<{ action: string; target: string }[]>(['audit']);
    for (const e of audit) noValue(e.target, t.token);
    const again = await cli.run(['token', 'revoke', '-', '--as', 'alice'], { input: t.token });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`token ${t.id} was already revoked`);
  });

  it('refuses a value as the argument, pointing to "-", and revokes nothing', async () => {
    const t = await createToken(cli, 'bob', 'pasted', 'alice');
    const r = await cli.run(['token', 'revoke', t.token, '--as', 'alice']);
    expect(r.code).toBe(2); // a usage error, as in token lookup
    expect(r.stderr).toMatch(/token revoke -/);
    expect(r.stderr).toMatch(/shell history/);
    noValue(r.stderr, t.token);
    expect((await allTokens(cli)).find((x) => x.id === t.id)?.status).toBe('active');
    // A legacy value (60 letters and digits) too, and the same status as token lookup gives it.
    const legacy = `${t.id}${'x'.repeat(52)}`;
    for (const command of ['revoke', 'lookup']) {
      const other = await cli.run(['token', command, legacy, '--as', 'alice']);
      expect(other.code, command).toBe(2);
      expect(other.stderr).not.toContain(legacy);
    }
  });

  it('refuses a garbled value without quoting it', async () => {
    const r = await cli.run(['token', 'revoke', '-', '--as', 'alice'], { input: 'arc_notatokenatall' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not a token value/);
    expect(r.stderr).not.toContain('notatokenatall');
  });
});
