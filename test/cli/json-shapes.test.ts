// docs/cli.md: every --json output is one JSON document of the documented shape (exact keys, in
// order), and a command that creates a token prints the value alone on stdout.
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from '../../src/domain/tokens/format.js';
import {
  createAccounts,
  createToken,
  CREATED_TOKEN_KEYS,
  DATE_RE,
  ISO_INSTANT_RE,
  legacyValue,
  lines,
  TOKEN_ID_RE,
  TOKEN_KEYS,
  TOKEN_VALUE_RE,
  useSandbox,
  type CreatedTokenJson,
  type TokenJson,
  asAdministrator,
} from '../helpers/cli.js';

const NOW = '2026-11-20T12:00:00Z';
const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { alice: 'admin', bob: 'user', carol: 'user' });
});

/** A TOKEN object of docs/cli.md, with its types. */
function expectToken(t: unknown, extra: { created?: boolean; listed?: boolean } = {}): asserts t is TokenJson {
  const keys = extra.created ? [...CREATED_TOKEN_KEYS] : [...TOKEN_KEYS];
  expect(Object.keys(t as object)).toEqual(extra.listed ? [...keys, 'last_used_from'] : keys);
  if (extra.listed) expect((t as { last_used_from: unknown }).last_used_from).toBeNull(); // no daemon has seen them
  const token = t as CreatedTokenJson;
  expect(token.id).toMatch(TOKEN_ID_RE);
  expect(typeof token.account).toBe('string');
  expect(typeof token.name).toBe('string');
  expect(['regular', 'legacy', 'handoff']).toContain(token.kind);
  expect(['active', 'expired', 'revoked']).toContain(token.status);
  expect(token.created).toMatch(ISO_INSTANT_RE);
  expect(new Date(token.created).toISOString()).toBe(token.created);
  expect(token.last_used).toBeNull(); // no daemon has seen these tokens
  if (token.expires !== null) expect(token.expires).toMatch(DATE_RE);
  if (extra.created) {
    expect(token.token).toMatch(TOKEN_VALUE_RE);
    expect(token.token.slice(4, 12)).toBe(token.id);
    expect(parse(token.token)).toMatchObject({ kind: 'regular', selector: token.id });
  }
}

describe('--json shapes of account commands', () => {
  it('account create → {"username","role"}', async () => {
    const out = await cli.json<Record<string, unknown>>([
      'account',
      'create',
      'shape-user',
      '--role',
      'editor',
      '--as',
      'alice',
    ]);
    expect(Object.keys(out)).toEqual(['username', 'role']);
    expect(out).toEqual({ username: 'shape-user', role: 'editor' });
  });

  it('account list → [{"username","role","tokens"}] with the number of active tokens', async () => {
    await createToken(cli, 'carol', 'counted', 'alice');
    const out = await cli.json<Record<string, unknown>[]>(['account', 'list']);
    expect(Array.isArray(out)).toBe(true);
    for (const a of out) {
      expect(Object.keys(a)).toEqual(['username', 'role', 'tokens']);
      expect(typeof a.username).toBe('string');
      expect(typeof a.role).toBe('string');
      expect(Number.isInteger(a.tokens)).toBe(true);
    }
    expect(out.find((a) => a.username === 'carol')).toEqual({ username: 'carol', role: 'user', tokens: 1 });
    expect(out.find((a) => a.username === 'alice')).toEqual({ username: 'alice', role: 'admin', tokens: 0 });
  });

  it('account show → {"username","role","tokens":[TOKEN]}', async () => {
    const out = await cli.json<{ username: string; role: string; tokens: unknown[] }>(['account', 'show', 'carol']);
    expect(Object.keys(out)).toEqual(['username', 'role', 'tokens']);
    expect(out.username).toBe('carol');
    expect(out.role).toBe('user');
    expect(out.tokens).toHaveLength(1);
    for (const t of out.tokens) expectToken(t);
    expect(out.tokens[0]).toMatchObject({ account: 'carol', name: 'counted' });
  });

  it('account set-role → {"username","role"}', async () => {
    const out = await cli.json<Record<string, unknown>>([
      'account',
      'set-role',
      'shape-user',
      'loan_admin',
      ...(await asAdministrator(cli)),
    ]);
    expect(Object.keys(out)).toEqual(['username', 'role']);
    expect(out).toEqual({ username: 'shape-user', role: 'loan_admin' });
  });

  it('account delete → {"username"}', async () => {
    const out = await cli.json<Record<string, unknown>>([
      'account',
      'delete',
      'shape-user',
      ...(await asAdministrator(cli)),
      '--yes',
    ]);
    expect(Object.keys(out)).toEqual(['username']);
    expect(out).toEqual({ username: 'shape-user' });
  });
});

describe('--json shapes of token commands', () => {
  it('token create → TOKEN plus "token"', async () => {
    const t = await createToken(cli, 'bob', 'shape create', 'alice', ['--expires', '2030-12-31'], { now: NOW });
    expectToken(t, { created: true });
    expect(t).toMatchObject({
      account: 'bob',
      name: 'shape create',
      kind: 'regular',
      status: 'active',
      expires: '2030-12-31',
    });
    expect(t.created).toBe('2026-11-20T12:00:00.000Z');
  });

  it('token create without --expires → "expires": null', async () => {
    const t = await createToken(cli, 'bob', 'shape no expiry', 'alice');
    expectToken(t, { created: true });
    expect(t.expires).toBeNull();
  });

  it('token list → [TOKEN plus "last_used_from"]', async () => {
    const out = await cli.json<unknown[]>(['token', 'list', '--all']);
    expect(out.length).toBeGreaterThanOrEqual(3);
    for (const t of out) expectToken(t, { listed: true });
  });

  it('token list → [] when there is nothing to list', async () => {
    expect(await cli.json(['token', 'list', 'alice'])).toEqual([]);
  });

  it('token revoke → TOKEN', async () => {
    const t = await createToken(cli, 'bob', 'shape revoke', 'alice');
    const out = await cli.json(['token', 'revoke', t.id, '--as', 'alice']);
    expectToken(out);
    expect(out.status).toBe('revoked');
  });

  it('token rotate → TOKEN plus "token"', async () => {
    const t = await createToken(cli, 'bob', 'shape rotate', 'alice');
    const out = await cli.json(['token', 'rotate', t.id, '--as', 'alice']);
    expectToken(out, { created: true });
  });

  it('token prune → {"pruned": n}', async () => {
    const dry = await cli.json<Record<string, unknown>>([
      'token',
      'prune',
      '--dry-run',
      ...(await asAdministrator(cli)),
    ]);
    expect(Object.keys(dry)).toEqual(['pruned']);
    expect(Number.isInteger(dry.pruned)).toBe(true);
    expect(dry.pruned).toBeGreaterThanOrEqual(2); // the revoked and the rotated token
    const out = await cli.json<Record<string, unknown>>(['token', 'prune', ...(await asAdministrator(cli)), '--yes']);
    expect(out).toEqual({ pruned: dry.pruned });
  });

  it('token handoff → TOKEN plus "token", kind handoff', async () => {
    const out = await cli.json(['token', 'handoff', 'bob', '--as', 'alice'], { now: NOW });
    expectToken(out, { created: true });
    expect(out).toMatchObject({ kind: 'handoff', account: 'bob', status: 'active' });
  });

  it('token import-legacy → {"imported": n, "skipped": n}', async () => {
    const out = await cli.json<Record<string, unknown>>(['token', 'import-legacy', '-', '--as', 'alice'], {
      input: `username,token\ncarol,${legacyValue()}\n`,
    });
    expect(Object.keys(out)).toEqual(['imported', 'skipped']);
    expect(out).toEqual({ imported: 1, skipped: 0 });
    const legacy = (await cli.json<TokenJson[]>(['token', 'list', 'carol'])).find((t) => t.kind === 'legacy');
    expectToken(legacy, { listed: true });
    expect(legacy.expires).toBeNull();
  });
});

describe('--json shapes of settings, routes and audit', () => {
  it('settings → {"public_api": bool, "public_access": bool, "token_max_days": null}', async () => {
    const out = await cli.json<Record<string, unknown>>(['settings']);
    expect(Object.keys(out)).toEqual(['public_api', 'public_access', 'token_max_days']);
    expect(typeof out.public_api).toBe('boolean');
    expect(typeof out.public_access).toBe('boolean');
    expect(out.token_max_days).toBeNull();
  });

  it('settings set → {"public_api": bool, "public_access": bool, "token_max_days": null}', async () => {
    const out = await cli.json<Record<string, unknown>>([
      'settings',
      'set',
      'public_access',
      'off',
      ...(await asAdministrator(cli)),
    ]);
    expect(Object.keys(out)).toEqual(['public_api', 'public_access', 'token_max_days']);
    expect(out.public_access).toBe(false);
  });

  it('routes → [{"method","path","rule","open","scope"}]', async () => {
    const out = await cli.json<Record<string, unknown>[]>(['routes']);
    expect(out.length).toBeGreaterThan(0);
    for (const r of out) {
      expect(Object.keys(r)).toEqual(['method', 'path', 'rule', 'open', 'scope']);
      expect(typeof r.open).toBe('boolean');
      // Only an open route needs no scope.
      expect(r.scope === null).toBe(r.rule === 'open');
    }
  });

  it('audit → [{"at","actor","action","target"}]', async () => {
    const out = await cli.json<Record<string, unknown>[]>(['audit']);
    expect(out.length).toBeGreaterThan(0);
    for (const e of out) {
      expect(Object.keys(e)).toEqual(['at', 'actor', 'action', 'target']);
      expect(e.at).toMatch(ISO_INSTANT_RE);
      expect(typeof e.actor).toBe('string');
      expect(typeof e.action).toBe('string');
      expect(typeof e.target).toBe('string');
    }
  });
});

describe('a command that creates a token', () => {
  const expectValueAlone = async (args: string[]): Promise<string> => {
    const r = await cli.run(args, { now: NOW });
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)).toHaveLength(1);
    expect(r.stdout).toMatch(/^arc_[0-9A-Za-z]{54}\n$/);
    const value = r.stdout.trim();
    expect(parse(value)).not.toBeNull();
    expect(r.stderr.length).toBeGreaterThan(0); // the notes go to stderr
    expect(r.stderr).not.toContain(value);
    return value;
  };

  it('prints the value alone on stdout (token create), the rest on stderr', async () => {
    const value = await expectValueAlone(['token', 'create', 'bob', '--name', 'alone', '--as', 'alice']);
    const listed = (await cli.json<TokenJson[]>(['token', 'list', 'bob'], { now: NOW })).find(
      (t) => t.id === value.slice(4, 12),
    );
    expect(listed?.name).toBe('alone');
  });

  it('prints the value alone on stdout (token rotate)', async () => {
    const t = await createToken(cli, 'bob', 'alone rotate', 'alice');
    const value = await expectValueAlone(['token', 'rotate', t.id, '--as', 'alice']);
    expect(value).not.toBe(t.token);
  });

  it('prints the value alone on stdout (token handoff)', async () => {
    await expectValueAlone(['token', 'handoff', 'carol', '--as', 'alice']);
  });

  it('prints a different value each time', async () => {
    const a = await expectValueAlone(['token', 'create', 'carol', '--name', 'one', '--as', 'alice']);
    const b = await expectValueAlone(['token', 'create', 'carol', '--name', 'two', '--as', 'alice']);
    expect(a).not.toBe(b);
  });
});
