// docs/cli.md#tokens: who may create and revoke whose tokens, and how the acting account is given.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  allTokens,
  createAccounts,
  createToken,
  lines,
  STACK_FRAME_RE,
  STAFF,
  TOKEN_VALUE_RE,
  useSandbox,
  type TokenJson,
} from '../helpers/cli.js';

// Every test works on its own tokens (distinct names), so the tests of a block run concurrently.
const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { ...STAFF, ursula: 'user', lena: 'loan_admin' });
});

/** Asserts a refusal: exit 1, one line on stderr, nothing on stdout, no stack trace. */
function expectRefused(r: { code: number; stdout: string; stderr: string }, mentions?: RegExp): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
  expect(lines(r.stderr)).toHaveLength(1);
  if (mentions) expect(r.stderr).toMatch(mentions);
}

/** The tokens of `owner` named `name`, revoked and expired ones included. */
async function tokensNamed(owner: string, name: string): Promise<TokenJson[]> {
  return (await allTokens(cli)).filter((t) => t.account === owner && t.name === name);
}

/** Nothing was created: no token of `owner` carries the name the refused command gave. */
async function expectNoToken(owner: string, name: string): Promise<void> {
  expect(await tokensNamed(owner, name)).toEqual([]);
}

async function tokenById(id: string): Promise<TokenJson | undefined> {
  return (await allTokens(cli)).find((t) => t.id === id);
}

describe.concurrent('token create: who may create whose tokens', () => {
  it('lets an admin create a token for a user', async () => {
    const t = await createToken(cli, 'bob', 'admin-made', 'alice');
    expect(t.account).toBe('bob');
    expect(t.token).toMatch(TOKEN_VALUE_RE);
    expect((await tokenById(t.id))?.status).toBe('active');
  });

  it('lets an admin create a token for another admin', async () => {
    const t = await createToken(cli, 'adam', 'for adam', 'alice');
    expect(t.account).toBe('adam');
  });

  it('refuses an admin creating a token for a superuser, and creates nothing', async () => {
    const r = await cli.run(['token', 'create', 'root', '--name', 'nope', '--as', 'alice']);
    expectRefused(r, /superuser/);
    await expectNoToken('root', 'nope');
  });

  it('lets a superuser create a token for another superuser', async () => {
    const t = await createToken(cli, 'sam', 'for sam', 'root');
    expect(t.account).toBe('sam');
    expect((await tokenById(t.id))?.account).toBe('sam');
  });

  it('lets a superuser create a token for an admin and a user', async () => {
    expect((await createToken(cli, 'alice', 'by root', 'root')).account).toBe('alice');
    expect((await createToken(cli, 'ursula', 'by root', 'root')).account).toBe('ursula');
  });

  it('refuses an admin creating a token for itself', async () => {
    expectRefused(await cli.run(['token', 'create', 'alice', '--name', 'mine', '--as', 'alice']), /own/);
    await expectNoToken('alice', 'mine');
  });

  it('refuses a superuser creating a token for itself', async () => {
    expectRefused(await cli.run(['token', 'create', 'root', '--name', 'mine', '--as', 'root']), /own/);
    await expectNoToken('root', 'mine');
  });

  it.each([
    { actor: 'ursula', role: 'user', owner: 'bob' },
    { actor: 'ursula', role: 'user', owner: 'ursula' },
    { actor: 'eddie', role: 'editor', owner: 'bob' },
    { actor: 'eddie', role: 'editor', owner: 'eddie' },
    { actor: 'lena', role: 'loan_admin', owner: 'bob' },
    { actor: 'bert', role: 'blocked', owner: 'bob' },
  ])('refuses $actor ($role) creating a token for $owner, and creates nothing', async ({ actor, owner }) => {
    const r = await cli.run(['token', 'create', owner, '--name', `by ${actor}`, '--as', actor]);
    expectRefused(r, new RegExp(actor));
    await expectNoToken(owner, `by ${actor}`);
  });

  it('refuses an unknown --as account with exit 1, and creates nothing', async () => {
    expectRefused(await cli.run(['token', 'create', 'bob', '--name', 'ghost', '--as', 'nobody']), /nobody/);
    await expectNoToken('bob', 'ghost');
  });

  it('refuses a token for an unknown account with exit 1', async () => {
    expectRefused(await cli.run(['token', 'create', 'nobody', '--name', 'x', '--as', 'alice']), /nobody/);
    expect((await allTokens(cli)).some((t) => t.name === 'x')).toBe(false);
  });
});

describe.concurrent('the acting account (--as, ARCHIVECTL_AS)', () => {
  it('stops with exit 2 and a message naming --as when --as is missing without a terminal', async () => {
    const r = await cli.run(['token', 'create', 'bob', '--name', 'no actor']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--as');
    expect(lines(r.stderr)).toHaveLength(1);
    await expectNoToken('bob', 'no actor');
  });

  it('stops with exit 2 naming --as for revoke and rotate without --as', async () => {
    const t = await createToken(cli, 'bob', 'needs actor', 'alice');
    for (const cmd of ['revoke', 'rotate']) {
      const r = await cli.run(['token', cmd, t.id]);
      expect(r.code, cmd).toBe(2);
      expect(r.stderr).toContain('--as');
    }
    expect((await tokenById(t.id))?.status).toBe('active');
  });

  it('takes ARCHIVECTL_AS in place of --as', async () => {
    const r = await cli.run(['token', 'create', 'bob', '--name', 'via env', '--json'], {
      env: { ARCHIVECTL_AS: 'alice' },
    });
    expect(r.code, r.stderr).toBe(0);
    const t = JSON.parse(r.stdout) as TokenJson;
    expect(t.account).toBe('bob');
    const audit = await cli.json<{ actor: string; action: string; target: string }[]>(['audit']);
    expect(audit.some((e) => e.actor === 'alice' && e.action === 'token.create' && e.target.includes(t.id))).toBe(true);
  });

  it('applies the rules to the ARCHIVECTL_AS account too', async () => {
    const r = await cli.run(['token', 'create', 'root', '--name', 'via env', '--json'], {
      env: { ARCHIVECTL_AS: 'alice' },
    });
    expectRefused(r);
    await expectNoToken('root', 'via env');
  });

  it('prefers --as over ARCHIVECTL_AS', async () => {
    const r = await cli.run(['token', 'create', 'bob', '--name', 'flag wins', '--as', 'ursula'], {
      env: { ARCHIVECTL_AS: 'alice' },
    });
    expectRefused(r, /ursula/);
    await expectNoToken('bob', 'flag wins');
  });
});

describe.concurrent('token revoke: who may revoke whose tokens', () => {
  it('refuses an admin revoking a superuser token, which stays active', async () => {
    const t = await createToken(cli, 'sam', 'keep me', 'root');
    expectRefused(await cli.run(['token', 'revoke', t.id, '--as', 'alice']), /superuser/);
    expect((await tokenById(t.id))?.status).toBe('active');
  });

  it('lets a superuser revoke another superuser token', async () => {
    const t = await createToken(cli, 'sam', 'revoke me', 'root');
    const revoked = await cli.json<TokenJson>(['token', 'revoke', t.id, '--as', 'root']);
    expect(revoked.status).toBe('revoked');
    expect((await tokenById(t.id))?.status).toBe('revoked');
  });

  it('lets an admin revoke a user token', async () => {
    const t = await createToken(cli, 'bob', 'revoke by admin', 'adam');
    const revoked = await cli.json<TokenJson>(['token', 'revoke', t.id, '--as', 'alice']);
    expect(revoked.status).toBe('revoked');
  });

  it('refuses an admin revoking its own token', async () => {
    const t = await createToken(cli, 'alice', 'alice own', 'adam');
    expectRefused(await cli.run(['token', 'revoke', t.id, '--as', 'alice']), /own/);
    expect((await tokenById(t.id))?.status).toBe('active');
  });

  it('refuses a user revoking its own token or another one', async () => {
    const own = await createToken(cli, 'ursula', 'ursula own', 'alice');
    const other = await createToken(cli, 'bob', 'bob other', 'alice');
    expectRefused(await cli.run(['token', 'revoke', own.id, '--as', 'ursula']));
    expectRefused(await cli.run(['token', 'revoke', other.id, '--as', 'ursula']));
    expectRefused(await cli.run(['token', 'revoke', other.id, '--as', 'eddie']));
    expect((await tokenById(own.id))?.status).toBe('active');
    expect((await tokenById(other.id))?.status).toBe('active');
  });

  it('revokes with ARCHIVECTL_AS in place of --as', async () => {
    const t = await createToken(cli, 'bob', 'revoke via env', 'alice');
    const r = await cli.run(['token', 'revoke', t.id, '--json'], { env: { ARCHIVECTL_AS: 'adam' } });
    expect(r.code, r.stderr).toBe(0);
    expect((await tokenById(t.id))?.status).toBe('revoked');
  });

  it('refuses an unknown --as account for revoke', async () => {
    const t = await createToken(cli, 'bob', 'revoke ghost', 'alice');
    expectRefused(await cli.run(['token', 'revoke', t.id, '--as', 'nobody']), /nobody/);
    expect((await tokenById(t.id))?.status).toBe('active');
  });
});

describe.concurrent('token rotate: the same rules as create and revoke', () => {
  it('refuses an admin rotating a superuser token', async () => {
    const t = await createToken(cli, 'sam', 'rotate refused', 'root');
    expectRefused(await cli.run(['token', 'rotate', t.id, '--as', 'alice']));
    expect((await tokensNamed('sam', 'rotate refused')).map((x) => [x.id, x.status])).toEqual([[t.id, 'active']]);
  });

  it('refuses a user rotating its own token', async () => {
    const t = await createToken(cli, 'bob', 'rotate own', 'alice');
    expectRefused(await cli.run(['token', 'rotate', t.id, '--as', 'bob']));
    expect((await tokensNamed('bob', 'rotate own')).map((x) => [x.id, x.status])).toEqual([[t.id, 'active']]);
  });
});
