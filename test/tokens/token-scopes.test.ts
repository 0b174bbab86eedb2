// token create --scope/--allow-from/--rate-limit, token update, rotate: what narrows a token is
// checked before anything is stored (a bad value: exit status 2, naming the flag, nothing
// stored), kept in one canonical form, shown by every listing, kept by rotation and audited.
// doctor warns about tokens that carry every right of an admin account and never end.
import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/scopes.js';
import {
  allTokens,
  createAccounts,
  createToken,
  TOKEN_KEYS,
  useSandbox,
  withSandboxDb,
  type TokenJson,
} from '../helpers/cli.js';

const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { root: 'superuser', alice: 'admin', bot: 'editor' });
});

const audit = async (action: string) =>
  (await cli.json<{ actor: string; action: string; target: string }[]>(['audit'])).filter((e) => e.action === action);

describe('token create with restrictions', () => {
  it('stores them in canonical form and shows them in --json, list, show', async () => {
    const t = await createToken(cli, 'bot', 'narrow', 'root', [
      '--scope',
      'tei:refresh, read,read',
      '--allow-from',
      '2001:DB8:0::/32,192.0.2.1,10.0.0.0/8',
      '--rate-limit',
      '600/hour',
    ]);
    expect(Object.keys(t)).toEqual([...TOKEN_KEYS, 'token']);
    expect(t).toMatchObject({
      scopes: ['read', 'tei:refresh'],
      allow_from: ['2001:db8::/32', '192.0.2.1/32', '10.0.0.0/8'],
      rate_limit: '600/hour',
    });
    const listed = (await allTokens(cli)).find((x) => x.id === t.id);
    expect(listed).toMatchObject({ scopes: t.scopes, allow_from: t.allow_from, rate_limit: t.rate_limit });
    const shown = await cli.json<TokenJson>(['token', 'show', t.id]);
    expect(shown).toMatchObject({ scopes: t.scopes, allow_from: t.allow_from, rate_limit: t.rate_limit });
    const human = await cli.run(['token', 'show', t.id]);
    expect(human.stdout).toMatch(/Scopes\s+read,tei:refresh/);
    expect(human.stdout).toMatch(/Allowed from\s+2001:db8::\/32,192\.0\.2\.1\/32,10\.0\.0\.0\/8/);
    expect(human.stdout).toMatch(/Rate limit\s+600\/hour/);
    const table = await cli.run(['token', 'list', 'bot']);
    expect(table.stdout).toMatch(
      new RegExp(`^${t.id} .* read,tei:refresh +2001:db8::/32,192.0.2.1/32,10.0.0.0/8 +600/hour$`, 'm'),
    );
    for (const out of [human.stdout, table.stdout, JSON.stringify(listed)])
      expect(out).not.toContain(t.token.slice(12));
    const [created] = (await audit('token.create')).filter((e) => e.target.startsWith(t.id));
    expect(created?.target).toBe(
      `${t.id} "narrow" of bot; scopes=read,tei:refresh allow_from=2001:db8::/32,192.0.2.1/32,10.0.0.0/8 rate_limit=600/hour`,
    );
  });

  it('gives a token without them every right, from anywhere, without a rate of its own', async () => {
    const t = await createToken(cli, 'bot', 'plain', 'root');
    expect(t).toMatchObject({ scopes: ['*'], allow_from: null, rate_limit: null });
    const [created] = (await audit('token.create')).filter((e) => e.target.startsWith(t.id));
    expect(created?.target).toBe(`${t.id} "plain" of bot`);
  });

  it.each([
    [
      ['--scope', 'reed'],
      // Every scope named, in the order of SCOPES: a new scope shows here without a second list.
      new RegExp(
        `^error: --scope must be a comma-separated list of the scopes ${SCOPES.join(', ')} \\(or \\* for every right\\), got "reed": "reed" is no scope$`,
        'm',
      ),
    ],
    [['--scope', ''], /--scope must be .*got "": an empty item is no scope/],
    [['--scope', 'read,'], /--scope must be .*an empty item is no scope/],
    [
      ['--allow-from', '10.0.0.256'],
      /--allow-from must be .*got "10\.0\.0\.256": "10\.0\.0\.256" is no IPv4 or IPv6 address or CIDR block/,
    ],
    [
      ['--allow-from', '10.1.2.3/8'],
      /--allow-from .*"10\.1\.2\.3\/8" has bits set past its \/8: its block is 10\.0\.0\.0\/8/,
    ],
    [['--allow-from', '10.0.0.0/33'], /--allow-from .*no IPv4 or IPv6 address or CIDR block/],
    [['--allow-from', '10.1'], /--allow-from .*"10\.1" is no IPv4/],
    [['--allow-from', 'fe80::1%eth0'], /--allow-from .*no IPv4 or IPv6/],
    [['--allow-from', '::ffff:10.0.0.1'], /--allow-from .*write IPv4 clients in IPv4 form/],
    [['--allow-from', 'any'], /--allow-from must be .*got "any"/],
    [
      ['--rate-limit', '600/day'],
      /--rate-limit: a rate limit is written N\/minute or N\/hour, with N from 1 to 1,000,000, got "600\/day"/,
    ],
    [['--rate-limit', '0/hour'], /--rate-limit: .*got "0\/hour"/],
    [['--rate-limit', 'none'], /--rate-limit: .*got "none"/],
  ])('refuses %j with exit status 2 and stores nothing', async (flags, message) => {
    const before = (await allTokens(cli)).length;
    const r = await cli.run([
      'token',
      'create',
      'bot',
      '--name',
      `refused ${flags.join(' ')}`,
      ...flags,
      '--as',
      'root',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect((await allTokens(cli)).length).toBe(before);
  });

  it('lists the scopes and what each allows in --help', async () => {
    const r = await cli.run(['token', 'create', '--help']);
    for (const scope of ['read', 'catalog:write', 'sips', 'ingest', 'ai-usage', 'tei:refresh'])
      expect(r.stdout).toMatch(new RegExp(`^ +${scope} +\\S`, 'm'));
    expect(r.stdout).toContain('--allow-from <cidrs>');
    expect(r.stdout).toContain('--rate-limit <rate>');
  });
});

describe('token rotate', () => {
  it('keeps the scopes, the addresses and the rate, and audits them', async () => {
    const t = await createToken(cli, 'bot', 'rotated', 'root', ['--scope', 'ai-usage', '--allow-from', '192.0.2.0/24']);
    const r = await cli.json<TokenJson & { token: string }>(['token', 'rotate', t.id, '--as', 'root']);
    expect(r).toMatchObject({ scopes: ['ai-usage'], allow_from: ['192.0.2.0/24'], rate_limit: null });
    const [rotated] = (await audit('token.rotate')).filter((e) => e.target.startsWith(t.id));
    expect(rotated?.target).toBe(
      `${t.id} -> ${r.id} "rotated" of bot; scopes=ai-usage allow_from=192.0.2.0/24 rate_limit=none`,
    );
  });
});

describe('token update', () => {
  it('changes what is given, keeps the rest, audits old and new, and never prints the value', async () => {
    const t = await createToken(cli, 'bot', 'updated', 'root', ['--scope', 'read', '--rate-limit', '10/minute']);
    const r = await cli.run([
      'token',
      'update',
      t.id,
      '--scope',
      'read,ai-usage',
      '--allow-from',
      '198.51.100.7',
      '--as',
      'alice',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `Updated token ${t.id} "updated" of bot: scopes read,ai-usage; from 198.51.100.7/32; rate 10/minute.\n`,
    );
    const json = await cli.json<TokenJson>([
      'token',
      'update',
      t.id,
      '--rate-limit',
      'none',
      '--json',
      '--as',
      'alice',
    ]);
    expect(json).toMatchObject({
      id: t.id,
      scopes: ['read', 'ai-usage'],
      allow_from: ['198.51.100.7/32'],
      rate_limit: null,
    });
    const lifted = await cli.json<TokenJson>([
      'token',
      'update',
      t.id,
      '--scope',
      '*',
      '--allow-from',
      'any',
      '--json',
      '--as',
      'alice',
    ]);
    expect(lifted).toMatchObject({ scopes: ['*'], allow_from: null, rate_limit: null });
    const updates = (await audit('token.update')).filter((e) => e.target.startsWith(t.id));
    expect(updates.map((e) => [e.actor, e.target])).toEqual([
      [
        'alice',
        `${t.id} "updated" of bot: scopes=read,ai-usage allow_from=198.51.100.7/32 rate_limit=10/minute (was scopes=read allow_from=any rate_limit=10/minute)`,
      ],
      [
        'alice',
        `${t.id} "updated" of bot: scopes=read,ai-usage allow_from=198.51.100.7/32 rate_limit=none (was scopes=read,ai-usage allow_from=198.51.100.7/32 rate_limit=10/minute)`,
      ],
      [
        'alice',
        `${t.id} "updated" of bot: scopes=* allow_from=any rate_limit=none (was scopes=read,ai-usage allow_from=198.51.100.7/32 rate_limit=none)`,
      ],
    ]);
    // The same again changes nothing and is not audited.
    const same = await cli.run(['token', 'update', t.id, '--scope', '*', '--as', 'alice']);
    expect(same.code).toBe(0);
    expect(same.stderr).toMatch(/^Nothing to change for token/);
    expect((await audit('token.update')).filter((e) => e.target.startsWith(t.id))).toHaveLength(3);
  });

  it('refuses a bad value (2), nothing to change (2), an inactive token (1), its own token (1): nothing changed', async () => {
    const t = await createToken(cli, 'bot', 'kept', 'root', ['--scope', 'sips']);
    const bad = await cli.run(['token', 'update', t.id, '--scope', 'sips,everything', '--as', 'root']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--scope must be .*"everything" is no scope/);
    const none = await cli.run(['token', 'update', t.id, '--as', 'root']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give what to change: --scope, --allow-from and\/or --rate-limit/);
    const badRate = await cli.run(['token', 'update', t.id, '--rate-limit', '5/second', '--as', 'root']);
    expect(badRate.code).toBe(2);
    await createAccounts(cli, { ed: 'editor' });
    const byEditor = await cli.run(['token', 'update', t.id, '--scope', 'read', '--as', 'ed']);
    expect(byEditor.code).toBe(1);
    expect((await cli.json<TokenJson>(['token', 'show', t.id])).scopes).toEqual(['sips']);
    expect((await cli.run(['token', 'revoke', t.id, '--as', 'root'])).code).toBe(0);
    const revoked = await cli.run(['token', 'update', t.id, '--scope', 'read', '--as', 'root']);
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toMatch(/is revoked; nothing to update/);
  });
});

describe('doctor', () => {
  it('warns about active tokens with every right of an admin or superuser account and no end', async () => {
    const findings = async () =>
      (await cli.json<{ check: string; status: string; detail: string }[]>(['doctor'])).find(
        (f) => f.check === 'token rights',
      );
    await createAccounts(cli, { admin2: 'admin' });
    const broad = await createToken(cli, 'admin2', 'does everything', 'root', ['--no-expires']);
    await createToken(cli, 'admin2', 'narrow', 'root', ['--scope', 'read']);
    await createToken(cli, 'admin2', 'ends', 'root', ['--expires', '2037-01-01']);
    const finding = await findings();
    expect(finding?.status).toBe('warn');
    expect(finding?.detail).toContain(`${broad.id} "does everything" of admin2`);
    expect(finding?.detail).not.toContain('"narrow" of admin2');
    expect(finding?.detail).not.toContain('"ends" of admin2');
    expect(finding?.detail).not.toContain('of bot'); // an editor's tokens are not listed
    expect((await cli.run(['token', 'update', broad.id, '--scope', 'read', '--as', 'root'])).code).toBe(0);
    expect((await findings())?.detail ?? '').not.toContain(broad.id);
  });
});

describe('migrate --to the schema before token_scopes', () => {
  it('revokes every token narrowed by scopes or addresses (the older release would widen them), and no other', async () => {
    const scoped = await createToken(cli, 'bot', 'scoped before rollback', 'root', ['--scope', 'read']);
    const bound = await createToken(cli, 'bot', 'bound before rollback', 'root', ['--allow-from', '192.0.2.1']);
    const rated = await createToken(cli, 'bot', 'rated before rollback', 'root', ['--rate-limit', '5/minute']);
    const plain = await createToken(cli, 'bot', 'plain before rollback', 'root');
    const down = await cli.run(['migrate', '--to', '20261202000000_search_statistics', '--no-backup']);
    expect(down.code, down.stderr).toBe(0);
    const revoked = await withSandboxDb(cli, (db) =>
      db('tokens')
        .whereIn('selector', [scoped.id, bound.id, rated.id, plain.id])
        .whereNotNull('revoked_at')
        .pluck<string[]>('selector'),
    );
    expect(revoked.sort()).toEqual([scoped.id, bound.id].sort());
    const up = await cli.run(['migrate', '--no-backup']);
    expect(up.code, up.stderr).toBe(0);
    const listed = await allTokens(cli);
    expect(listed.find((t) => t.id === rated.id)).toMatchObject({ status: 'active', rate_limit: null });
    expect(listed.find((t) => t.id === scoped.id)).toMatchObject({ status: 'revoked', scopes: ['*'] });
  });
});
