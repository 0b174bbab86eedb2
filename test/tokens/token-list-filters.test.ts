// token list --kind regular|legacy|handoff and --unused-for <days> (never used, or not used
// for that many days), alone and with the other filters, in the table and in --json. Uses are
// made through a listening daemon; later days are seen by pinning the CLI's clock.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, send } from '../helpers/api.js';
import { allTokens, createAccounts, createToken, legacyValue, lines, type TokenJson } from '../helpers/cli.js';
import { useDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/until.js';

const { cli, daemon } = useDaemon();
const ids: Record<string, string> = {};
const DAY = 86_400_000;
/** An instant `days` from now, for a pinned CLI clock. */
const inDays = (days: number) => ({ now: new Date(Date.now() + days * DAY).toISOString() });

async function listed(args: string[], opts?: { now: string }): Promise<string[]> {
  const out = await cli().json<TokenJson[]>(['token', 'list', ...args], opts);
  return out.map((t) => t.id).sort();
}
const idsOf = (...names: string[]) => names.map((n) => ids[n] as string).sort();

beforeAll(async () => {
  await createAccounts(cli(), { root: 'superuser', ana: 'user', ben: 'editor' });
  const used = await createToken(cli(), 'ana', 'used regular', 'root');
  const idle = await createToken(cli(), 'ana', 'idle regular', 'root');
  const benUsed = await createToken(cli(), 'ben', 'ben used', 'root');
  const revoked = await createToken(cli(), 'ben', 'ben revoked idle', 'root');
  const legacy = legacyValue();
  const csv = path.join(cli().dir, 'legacy.csv');
  await writeFile(csv, `username,token,name\nana,${legacy},old script\n`);
  expect((await cli().run(['token', 'import-legacy', csv, '--as', 'root'])).code).toBe(0);
  const handoff = await cli().json<{ id: string }>(['token', 'handoff', 'ben', '--as', 'root']);
  expect((await cli().run(['token', 'revoke', revoked.id, '--as', 'root'])).code).toBe(0);
  Object.assign(ids, {
    used: used.id,
    idle: idle.id,
    benUsed: benUsed.id,
    revoked: revoked.id,
    legacy: legacy.slice(0, 8),
    handoff: handoff.id,
  });
  for (const value of [used.token, benUsed.token, legacy])
    expect((await send(daemon(), '/api/objects', { headers: bearer(value) })).status).toBe(200);
  await eventually(
    async () => (await allTokens(cli())).filter((t) => t.last_used !== null).length === 3,
    'three uses in token list',
  );
});

describe('token list --kind', () => {
  it('lists only tokens of that kind', async () => {
    expect(await listed(['--kind', 'legacy'])).toEqual(idsOf('legacy'));
    expect(await listed(['--kind', 'handoff'])).toEqual(idsOf('handoff'));
    expect(await listed(['--kind', 'regular'])).toEqual(idsOf('used', 'idle', 'benUsed'));
  });

  it('combines with the account, --all and --status', async () => {
    expect(await listed(['ana', '--kind', 'regular'])).toEqual(idsOf('used', 'idle'));
    expect(await listed(['--kind', 'regular', '--all'])).toEqual(idsOf('used', 'idle', 'benUsed', 'revoked'));
    expect(await listed(['--kind', 'regular', '--status', 'revoked'])).toEqual(idsOf('revoked'));
    expect(await listed(['--account', 'ben', '--kind', 'legacy'])).toEqual([]);
  });

  it('filters the table the same way', async () => {
    const r = await cli().run(['token', 'list', '--kind', 'legacy']);
    expect(r.code, r.stderr).toBe(0);
    const rows = lines(r.stdout).slice(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain(ids.legacy);
    expect(rows[0]).toContain('Legacy API token (old script)');
  });
});

describe('token list --unused-for', () => {
  it('lists tokens never used, or not used for that many days', async () => {
    expect(await listed(['--unused-for', '1'])).toEqual(idsOf('idle', 'handoff'));
    // Ten days on: the handoff token has expired, the used ones were last used ten days before.
    expect(await listed(['--unused-for', '5'], inDays(10))).toEqual(idsOf('used', 'idle', 'benUsed', 'legacy'));
    expect(await listed(['--unused-for', '11'], inDays(10))).toEqual(idsOf('idle'));
    expect(await listed(['--unused-for', '11', '--all'], inDays(10))).toEqual(idsOf('idle', 'revoked', 'handoff'));
  });

  it('combines with --kind and the account', async () => {
    expect(await listed(['--kind', 'regular', '--unused-for', '1'])).toEqual(idsOf('idle'));
    expect(await listed(['--kind', 'legacy', '--unused-for', '1'])).toEqual([]);
    expect(await listed(['--kind', 'legacy', '--unused-for', '7'], inDays(10))).toEqual(idsOf('legacy'));
    expect(await listed(['ben', '--unused-for', '7'], inDays(10))).toEqual(idsOf('benUsed'));
  });

  it('adds last_used_from to every listed token', async () => {
    const out = await cli().json<(TokenJson & { last_used_from: string | null })[]>(['token', 'list']);
    const from = (name: string) => out.find((t) => t.id === ids[name])?.last_used_from;
    expect(from('used')).toBe('127.0.0.1');
    expect(from('legacy')).toBe('127.0.0.1');
    expect(from('idle')).toBeNull();
  });
});

describe('bad filter values', () => {
  it.each([
    [['--kind', 'Regular'], '--kind must be one of regular, legacy, handoff'],
    [['--kind', ''], '--kind must be one of'],
    [['--unused-for', '0'], 'error: --unused-for must be a whole number from 1 on, got "0"'],
    [['--unused-for', 'a week'], 'error: --unused-for must be a whole number from 1 on, got "a week"'],
    [['--unused-for', '-1'], 'error: --unused-for must be a whole number from 1 on, got "-1"'],
    [['--limit', '0'], 'error: --limit must be a whole number from 1 on, got "0"'],
    [['--limit', '-1'], 'error: --limit must be a whole number from 1 on, got "-1"'],
  ])('refuses %j as a usage error (exit 2) before opening the database', async (args, message) => {
    const r = await cli().run(['token', 'list', ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
  });
});
