// docs/cli.md#token-lifetimes: expiry is an optional UTC calendar date D, today or later and at most 2038-01-18
// (any other --expires is a bad option value: exit status 2);
// the token is accepted up to the end of D and refused from D+1 00:00:00Z on. The CLI's clock
// is pinned by the `now` option of the test helper (main run in-process with a fixed clock).
import { beforeAll, describe, expect, it } from 'vitest';
import { allTokens, createAccounts, createToken, lines, useSandbox, type TokenJson } from '../helpers/cli.js';

const NOW = '2026-11-20T12:00:00Z';
const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { alice: 'admin', bob: 'user', carol: 'user', dave: 'user' });
});

describe.concurrent('token create --expires (pinned clock 2026-11-20T12:00:00Z)', () => {
  it.each([
    ['2038-01-18', 'the latest allowed date'],
    ['2026-11-20', 'today'],
    ['2026-11-21', 'tomorrow as a date'],
  ])('accepts %s (%s)', async (date) => {
    const t = await createToken(cli, 'bob', `until ${date}`, 'alice', ['--expires', date], { now: NOW });
    expect(t.expires).toBe(date);
    expect(t.status).toBe('active');
    expect(t.created).toBe('2026-11-20T12:00:00.000Z');
    const listed = (await allTokens(cli, { now: NOW })).find((x) => x.id === t.id);
    expect(listed?.expires).toBe(date);
    expect(listed?.status).toBe('active');
  });

  it.each([
    ['2038-01-19', 'the day after the latest allowed date'],
    ['2026-11-19', 'yesterday'],
    ['2038-02-30', 'a day that does not exist'],
    ['tomorrow', 'a word'],
    ['2026-13-01', 'month 13'],
    ['2026-11-20T23:00:00Z', 'an instant'],
    ['2026-1-5', 'without zero padding'],
    ['20261121', 'without dashes'],
  ])('refuses %s (%s) as a usage error (exit 2) and creates nothing', async (date) => {
    const r = await cli.run(['token', 'create', 'carol', '--name', `bad ${date}`, '--expires', date, '--as', 'alice'], {
      now: NOW,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: --expires must be .*, got "${date}"\n$`));
    expect(lines(r.stderr)).toHaveLength(1);
    // carol only ever receives refused tokens in this file: she must have none at all.
    expect(await cli.json(['token', 'list', 'carol', '--all'], { now: NOW })).toEqual([]);
  });

  it('takes "today" from the pinned clock: 2026-11-20 is refused once it is 2026-11-21', async () => {
    const late = '2026-11-20T23:59:59Z';
    const ok = await createToken(cli, 'dave', 'today at the last second', 'alice', ['--expires', '2026-11-20'], {
      now: late,
    });
    expect(ok.expires).toBe('2026-11-20');
    const r = await cli.run(
      ['token', 'create', 'dave', '--name', 'yesterday now', '--expires', '2026-11-20', '--as', 'alice'],
      {
        now: '2026-11-21T00:00:00Z',
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--expires must be today (2026-11-21 UTC) or later, got "2026-11-20"');
    expect((await allTokens(cli)).some((t) => t.name === 'yesterday now')).toBe(false);
  });

  it('creates a token without expiry when --expires is not given (expires null)', async () => {
    const t = await createToken(cli, 'bob', 'forever', 'alice', [], { now: NOW });
    expect(t.expires).toBeNull();
    const far = (await allTokens(cli, { now: '2038-01-19T00:00:00Z' })).find((x) => x.id === t.id);
    expect(far?.status).toBe('active');
  });
});

describe.concurrent('status of a token expiring 2026-11-20', () => {
  let token: TokenJson;

  beforeAll(async () => {
    await createAccounts(cli, { erin: 'user' });
    token = await createToken(cli, 'erin', 'ends today', 'alice', ['--expires', '2026-11-20'], { now: NOW });
  });

  const statusAt = async (now: string, all: boolean): Promise<TokenJson | undefined> => {
    const list = await cli.json<TokenJson[]>(['token', 'list', 'erin', ...(all ? ['--all'] : [])], { now });
    return list.find((t) => t.id === token.id);
  };

  it('is active at 2026-11-20T23:59:59Z, and listed without --all', async () => {
    expect((await statusAt('2026-11-20T23:59:59Z', true))?.status).toBe('active');
    expect((await statusAt('2026-11-20T23:59:59.999Z', true))?.status).toBe('active');
    expect((await statusAt('2026-11-20T23:59:59Z', false))?.status).toBe('active');
  });

  it('is expired at 2026-11-21T00:00:00Z, listed with --all only', async () => {
    expect((await statusAt('2026-11-21T00:00:00Z', true))?.status).toBe('expired');
    expect(await statusAt('2026-11-21T00:00:00Z', false)).toBeUndefined();
    const plain = await cli.json<TokenJson[]>(['token', 'list'], { now: '2026-11-21T00:00:00Z' });
    expect(plain.map((t) => t.id)).not.toContain(token.id);
  });

  it('counts as an active token in account list until it expires', async () => {
    type Row = { username: string; tokens: number };
    const before = await cli.json<Row[]>(['account', 'list'], { now: '2026-11-20T23:59:59Z' });
    const after = await cli.json<Row[]>(['account', 'list'], { now: '2026-11-21T00:00:00Z' });
    expect(before.find((a) => a.username === 'erin')?.tokens).toBe(1);
    expect(after.find((a) => a.username === 'erin')?.tokens).toBe(0);
  });

  it('is shown as expired by account show', async () => {
    const shown = await cli.json<{ tokens: TokenJson[] }>(['account', 'show', 'erin'], { now: '2026-11-21T00:00:00Z' });
    expect(shown.tokens.find((t) => t.id === token.id)?.status).toBe('expired');
  });
});
