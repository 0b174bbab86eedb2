// docs/cli.md#tokens: token names, listing, revoke, rotate and prune.
// Each block has its own installation; within a block, tests that only touch their own tokens
// (distinct names) or only read run concurrently. Pruning is sequential by nature.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  allTokens,
  createAccounts,
  createToken,
  lines,
  STACK_FRAME_RE,
  TOKEN_KEYS,
  TOKEN_VALUE_RE,
  useSandbox,
  type CreatedTokenJson,
  type TokenJson,
  administrator,
  asAdministrator,
} from '../helpers/cli.js';

const NOW = '2026-11-20T12:00:00Z';
const LATER = '2026-11-22T12:00:00Z'; // a token expiring 2026-11-20 is expired by then

describe.concurrent('token names', () => {
  const cli = useSandbox();

  beforeAll(async () => {
    await createAccounts(cli, { alice: 'admin', bob: 'user', carol: 'user' });
  });

  it('refuses a second token with the same name on the same account (exit 1), creating nothing', async () => {
    const first = await createToken(cli, 'bob', 'nightly ingest', 'alice');
    const r = await cli.run(['token', 'create', 'bob', '--name', 'nightly ingest', '--as', 'alice']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('nightly ingest');
    expect(lines(r.stderr)).toHaveLength(1);
    const named = (await allTokens(cli)).filter((t) => t.account === 'bob' && t.name === 'nightly ingest');
    expect(named.map((t) => t.id)).toEqual([first.id]);
  });

  it('allows the same name on another account', async () => {
    const t = await createToken(cli, 'carol', 'nightly ingest', 'alice');
    expect(t.account).toBe('carol');
    expect(t.name).toBe('nightly ingest');
  });

  it('allows the name again once the token holding it is revoked', async () => {
    const first = await createToken(cli, 'bob', 'reused', 'alice');
    expect((await cli.run(['token', 'create', 'bob', '--name', 'reused', '--as', 'alice'])).code).toBe(1);
    await cli.json(['token', 'revoke', first.id, '--as', 'alice']);
    const second = await createToken(cli, 'bob', 'reused', 'alice');
    expect(second.id).not.toBe(first.id);
    const named = (await allTokens(cli)).filter((t) => t.account === 'bob' && t.name === 'reused');
    expect(named.map((t) => [t.id, t.status]).sort()).toEqual(
      [
        [first.id, 'revoked'],
        [second.id, 'active'],
      ].sort(),
    );
  });

  it('keeps the name taken while the token is merely expired (unique among non-revoked tokens)', async () => {
    await createToken(cli, 'carol', 'short-lived', 'alice', ['--expires', '2026-11-20'], { now: NOW });
    const r = await cli.run(['token', 'create', 'carol', '--name', 'short-lived', '--as', 'alice'], { now: LATER });
    expect(r.code).toBe(1);
  });
});

describe.concurrent('token list', () => {
  const cli = useSandbox();
  const made: Record<string, CreatedTokenJson> = {};
  const ids = (list: TokenJson[]) => list.map((t) => t.id).sort();

  beforeAll(async () => {
    await createAccounts(cli, { alice: 'admin', root: 'superuser', una: 'user', uwe: 'user', eve: 'editor' });
    made.active = await createToken(cli, 'una', 'active one', 'alice', [], { now: NOW });
    made.revoked = await createToken(cli, 'una', 'revoked one', 'alice', [], { now: NOW });
    made.expired = await createToken(cli, 'una', 'expired one', 'alice', ['--expires', '2026-11-20'], { now: NOW });
    made.other = await createToken(cli, 'uwe', 'other account', 'alice', ['--expires', '2030-01-01'], { now: NOW });
    made.eves = await createToken(cli, 'eve', 'editor token', 'alice', [], { now: NOW });
    await cli.json(['token', 'revoke', made.revoked.id, '--as', 'alice'], { now: NOW });
  });

  it('lists only active tokens without --all', async () => {
    const list = await cli.json<TokenJson[]>(['token', 'list'], { now: LATER });
    expect(ids(list)).toEqual([made.active!.id, made.other!.id, made.eves!.id].sort());
    expect(list.every((t) => t.status === 'active')).toBe(true);
  });

  it('adds expired and revoked tokens, marked so, with --all', async () => {
    const list = await cli.json<TokenJson[]>(['token', 'list', '--all'], { now: LATER });
    expect(ids(list)).toEqual(
      Object.values(made)
        .map((t) => t.id)
        .sort(),
    );
    const status = Object.fromEntries(list.map((t) => [t.id, t.status]));
    expect(status[made.revoked!.id]).toBe('revoked');
    expect(status[made.expired!.id]).toBe('expired');
    expect(status[made.active!.id]).toBe('active');
  });

  it('lists one account with token list <username>', async () => {
    expect(ids(await cli.json<TokenJson[]>(['token', 'list', 'una'], { now: LATER }))).toEqual([made.active!.id]);
    const all = await cli.json<TokenJson[]>(['token', 'list', 'una', '--all'], { now: LATER });
    expect(ids(all)).toEqual([made.active!.id, made.revoked!.id, made.expired!.id].sort());
    expect(all.every((t) => t.account === 'una')).toBe(true);
  });

  it('shows a non-admin (--as) only its own tokens', async () => {
    const own = await cli.json<TokenJson[]>(['token', 'list', '--as', 'una'], { now: LATER });
    expect(ids(own)).toEqual([made.active!.id]);
    const ownAll = await cli.json<TokenJson[]>(['token', 'list', '--all', '--as', 'una'], { now: LATER });
    expect(ownAll.every((t) => t.account === 'una')).toBe(true);
    expect(ownAll).toHaveLength(3);
    const explicit = await cli.json<TokenJson[]>(['token', 'list', 'una', '--as', 'una'], { now: LATER });
    expect(ids(explicit)).toEqual([made.active!.id]);
    const editor = await cli.json<TokenJson[]>(['token', 'list', '--as', 'eve'], { now: LATER });
    expect(ids(editor)).toEqual([made.eves!.id]);
  });

  it('takes the listing account from ARCHIVECTL_AS too', async () => {
    const own = await cli.json<TokenJson[]>(['token', 'list', '--all'], { now: LATER, env: { ARCHIVECTL_AS: 'uwe' } });
    expect(ids(own)).toEqual([made.other!.id]);
  });

  it("refuses a non-admin asking for another account's tokens (exit 1)", async () => {
    for (const actor of ['una', 'eve']) {
      const r = await cli.run(['token', 'list', 'uwe', '--as', actor, '--json'], { now: LATER });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(actor);
      expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
    }
  });

  it('shows an admin or superuser (--as) every account', async () => {
    for (const actor of ['alice', 'root']) {
      const list = await cli.json<TokenJson[]>(['token', 'list', '--all', '--as', actor], { now: LATER });
      expect(list).toHaveLength(Object.keys(made).length);
      const one = await cli.json<TokenJson[]>(['token', 'list', 'uwe', '--as', actor], { now: LATER });
      expect(ids(one)).toEqual([made.other!.id]);
    }
  });

  it('refuses an unknown --as account and an unknown username (exit 1)', async () => {
    const a = await cli.run(['token', 'list', '--as', 'nobody']);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('nobody');
    const b = await cli.run(['token', 'list', 'nobody']);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('nobody');
  });

  it('prints a table for people, with statuses and dates in UTC', async () => {
    const r = await cli.run(['token', 'list', '--all'], { now: LATER });
    expect(r.code).toBe(0);
    for (const t of Object.values(made)) expect(r.stdout).toContain(t.id);
    expect(r.stdout).toMatch(/\bID\b/);
    expect(r.stdout).toContain('revoked');
    expect(r.stdout).toContain('expired');
    expect(r.stdout).toContain('2026-11-20 12:00 UTC');
    expect(r.stdout).toContain('2030-01-01');
  });
});

describe.concurrent('token revoke', () => {
  const cli = useSandbox();

  beforeAll(async () => {
    await createAccounts(cli, { alice: 'admin', bob: 'user' });
  });

  it('prints the revoked TOKEN with status revoked', async () => {
    const t = await createToken(cli, 'bob', 'to revoke', 'alice', ['--expires', '2030-06-30'], { now: NOW });
    const revoked = await cli.json<TokenJson>(['token', 'revoke', t.id, '--as', 'alice'], { now: NOW });
    expect(Object.keys(revoked)).toEqual([...TOKEN_KEYS]);
    expect(revoked).toMatchObject({
      id: t.id,
      account: 'bob',
      name: 'to revoke',
      kind: 'regular',
      status: 'revoked',
      expires: '2030-06-30',
    });
    expect(JSON.stringify(revoked)).not.toContain(t.token);
  });

  it('takes effect at once: the token leaves token list and shows as revoked with --all', async () => {
    const t = await createToken(cli, 'bob', 'gone', 'alice');
    await cli.json(['token', 'revoke', t.id, '--as', 'alice']);
    expect((await cli.json<TokenJson[]>(['token', 'list'])).map((x) => x.id)).not.toContain(t.id);
    expect((await allTokens(cli)).find((x) => x.id === t.id)?.status).toBe('revoked');
  });

  it('exits 0 when revoking again, and the token stays revoked', async () => {
    const t = await createToken(cli, 'bob', 'twice', 'alice');
    await cli.json(['token', 'revoke', t.id, '--as', 'alice']);
    const again = await cli.run(['token', 'revoke', t.id, '--as', 'alice', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as TokenJson).status).toBe('revoked');
    expect((await allTokens(cli)).find((x) => x.id === t.id)?.status).toBe('revoked');
  });

  it('refuses an unknown token id (exit 1, one line, no stack trace)', async () => {
    const r = await cli.run(['token', 'revoke', 'ZZZZZZZZ', '--as', 'alice']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ZZZZZZZZ');
    expect(lines(r.stderr)).toHaveLength(1);
    expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
  });

  it('refuses a token value given in place of its id without echoing the value (docs/security.md)', async () => {
    // An operator holding a leaked value may well paste it: the error must not repeat it.
    const t = await createToken(cli, 'bob', 'pasted', 'alice');
    const legacy = 'Q'.repeat(60);
    // revoke takes "-" for a value: a value as its argument is a usage error (2), as in lookup.
    for (const [cmd, value, code] of [
      ['revoke', t.token, 2],
      ['rotate', t.token, 1],
      ['revoke', legacy, 2],
    ] as const) {
      const r = await cli.run(['token', cmd, value, '--as', 'alice']);
      expect(r.code, `${cmd}: ${r.stderr}`).toBe(code);
      expect(r.stdout).toBe('');
      expect(r.stderr, cmd).not.toContain(value);
      expect(r.stderr, cmd).not.toContain(value.slice(12, 52));
      expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
    }
    expect((await allTokens(cli)).find((x) => x.id === t.id)?.status).toBe('active');
  });

  it('refuses a malformed token id (exit 1)', async () => {
    const r = await cli.run(['token', 'revoke', 'not-an-id', '--as', 'alice']);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
  });
});

describe.concurrent('token rotate', () => {
  const cli = useSandbox();

  beforeAll(async () => {
    await createAccounts(cli, { alice: 'admin', bob: 'user' });
  });

  it('creates a new value with the same name and expiry, and revokes the old token', async () => {
    const old = await createToken(cli, 'bob', 'rotating', 'alice', ['--expires', '2031-03-31'], { now: NOW });
    const fresh = await cli.json<CreatedTokenJson>(['token', 'rotate', old.id, '--as', 'alice'], { now: NOW });
    expect(Object.keys(fresh)).toEqual([...TOKEN_KEYS, 'token']);
    expect(fresh.token).toMatch(TOKEN_VALUE_RE);
    expect(fresh.token).not.toBe(old.token);
    expect(fresh.id).not.toBe(old.id);
    expect(fresh).toMatchObject({
      account: 'bob',
      name: 'rotating',
      kind: 'regular',
      status: 'active',
      expires: '2031-03-31',
    });
    const list = await allTokens(cli, { now: NOW });
    expect(list.find((t) => t.id === old.id)?.status).toBe('revoked');
    expect(list.find((t) => t.id === fresh.id)).toMatchObject({
      status: 'active',
      name: 'rotating',
      expires: '2031-03-31',
    });
  });

  it('keeps "no expiry" when the old token had none', async () => {
    const old = await createToken(cli, 'bob', 'rotating forever', 'alice');
    const fresh = await cli.json<CreatedTokenJson>(['token', 'rotate', old.id, '--as', 'alice']);
    expect(fresh.expires).toBeNull();
  });

  it('prints the new value alone on stdout', async () => {
    const old = await createToken(cli, 'bob', 'rotating plain', 'alice');
    const r = await cli.run(['token', 'rotate', old.id, '--as', 'alice']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^arc_[0-9A-Za-z]{54}\n$/);
    expect(r.stdout.trim()).not.toBe(old.token);
  });

  it('refuses rotating a revoked token (exit 1) and creates nothing', async () => {
    const old = await createToken(cli, 'bob', 'rotate revoked', 'alice');
    await cli.json(['token', 'revoke', old.id, '--as', 'alice']);
    const r = await cli.run(['token', 'rotate', old.id, '--as', 'alice']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const named = (await allTokens(cli)).filter((t) => t.name === 'rotate revoked');
    expect(named.map((t) => [t.id, t.status])).toEqual([[old.id, 'revoked']]);
  });

  it('refuses an unknown token id (exit 1)', async () => {
    const r = await cli.run(['token', 'rotate', 'Zz00Zz00', '--as', 'alice']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Zz00Zz00');
  });
});

describe('token prune', () => {
  const cli = useSandbox();
  const made: Record<string, CreatedTokenJson> = {};

  beforeAll(async () => {
    await createAccounts(cli, { alice: 'admin', bob: 'user' });
    made.active = await createToken(cli, 'bob', 'stays', 'alice', ['--expires', '2030-01-01'], { now: NOW });
    made.revoked = await createToken(cli, 'bob', 'revoked', 'alice', [], { now: NOW });
    made.expired = await createToken(cli, 'bob', 'expired', 'alice', ['--expires', '2026-11-20'], { now: NOW });
    await cli.json(['token', 'revoke', made.revoked.id, '--as', 'alice'], { now: NOW });
  });

  it('counts with --dry-run without deleting anything', async () => {
    const before = await allTokens(cli, { now: LATER });
    expect(before).toHaveLength(3);
    expect(await cli.json(['token', 'prune', '--dry-run', ...(await asAdministrator(cli))], { now: LATER })).toEqual({
      pruned: 2,
    });
    expect(await allTokens(cli, { now: LATER })).toEqual(before);
  });

  it('does not count a token that has not expired yet by the pinned clock', async () => {
    expect(
      await cli.json(['token', 'prune', '--dry-run', ...(await asAdministrator(cli))], { now: '2026-11-20T23:59:59Z' }),
    ).toEqual({ pruned: 1 });
  });

  it('deletes expired and revoked tokens and prints {"pruned": n}', async () => {
    const result = await cli.json<Record<string, unknown>>(
      ['token', 'prune', ...(await asAdministrator(cli)), '--yes'],
      { now: LATER },
    );
    expect(Object.keys(result)).toEqual(['pruned']);
    expect(result).toEqual({ pruned: 2 });
    const left = await allTokens(cli, { now: LATER });
    expect(left.map((t) => t.id)).toEqual([made.active!.id]);
  });

  it('prunes nothing when run again', async () => {
    expect(await cli.json(['token', 'prune', ...(await asAdministrator(cli)), '--yes'], { now: LATER })).toEqual({
      pruned: 0,
    });
    expect(await allTokens(cli, { now: LATER })).toHaveLength(1);
  });

  it('records the prune in the audit log, with the acting account', async () => {
    const audit = await cli.json<{ actor: string; action: string }[]>(['audit']);
    expect(audit.filter((e) => e.action === 'token.prune').map((e) => e.actor)).toEqual([await administrator(cli)]);
  });
});
