// Issue 36: every answer typed at a question is checked as it is typed and asked again, with the
// reason on a line of its own; one rule for unattended use (--as named by every command that
// changes something, --yes for what cannot be undone); one exit status for a bad option value.
import { beforeAll, describe, expect, it } from 'vitest';
import { allTokens, createAccounts, createToken, lines, useSandbox } from '../helpers/cli.js';
import { runInTerminal, waitFor } from './cli-terminal.js';

const cli = useSandbox();
const NOW = '2026-11-20T12:00:00Z';

beforeAll(async () => {
  await createAccounts(cli, { root: 'superuser', alice: 'admin', bob: 'user', carl: 'user' });
});

describe('token create asked in a terminal', () => {
  it('asks again until each answer is right, the reason on a line of its own', async () => {
    await createToken(cli, 'carl', 'taken', 'alice');
    const run = runInTerminal(cli, ['token', 'create', 'carl', '--json'], { now: NOW });
    await waitFor(run, /Act as which account \(--as\)\?/);
    run.type('\r');
    await waitFor(run, /\n> an acting account is needed/);
    run.type('nobody\r');
    await waitFor(run, /\n> no account named "nobody"/);
    // Clear the line (Ctrl-U), then an account that may not act.
    run.type('\x15bob\r');
    await waitFor(run, /\n> bob \(user\) may not create tokens/);
    run.type('\x15alice\r');
    await waitFor(run, /What is the token for \(--name\)\?/);
    run.type('taken\r');
    await waitFor(run, /\n> carl already has a token named "taken"/);
    run.type('\x15nightly\r');
    await waitFor(run, /Last day of validity/);
    run.type('tomorrow\r');
    await waitFor(run, /\n> --expires must be a calendar date YYYY-MM-DD \(UTC\), got "tomorrow"/);
    run.type('\x152026-11-19\r');
    await waitFor(run, /\n> --expires 2026-11-19 is in the past/);
    run.type('\x152027-01-31\r');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ account: 'carl', name: 'nightly', expires: '2027-01-31' });
    // Nothing was made before the last answer: one token besides "taken".
    expect(
      (await allTokens(cli))
        .filter((t) => t.account === 'carl')
        .map((t) => t.name)
        .sort(),
    ).toEqual(['nightly', 'taken']);
  });

  it('says why nothing is asked when the output is captured (TOKEN=$(…) at a terminal)', async () => {
    const r = await runInTerminal(cli, ['token', 'create', 'carl', '--name', 'x'], { stdoutIsTerminal: false }).done;
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: missing --as <username> .*: not asked, as the output is captured \(stdout is not a terminal\)/,
    );
    expect(lines(r.stderr)).toHaveLength(1);
  });
});

describe('one rule for unattended use', () => {
  it('every command that changes something needs --as without a terminal (exit 2), changing nothing', async () => {
    for (const args of [
      ['account', 'create', 'dora', '--role', 'user'],
      ['account', 'set-role', 'bob', 'editor'],
      ['account', 'delete', 'bob', '--yes'],
      ['settings', 'set', 'public_api', 'on'],
      ['token', 'create', 'bob', '--name', 'x'],
      ['token', 'prune', '--yes'],
      ['token', 'handoff', 'bob'],
    ]) {
      const r = await cli.run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: missing --as <username> \(or ARCHIVECTL_AS\)/);
    }
    expect((await cli.json<{ username: string }[]>(['account', 'list'])).map((a) => a.username)).toEqual([
      'alice',
      'bob',
      'carl',
      'root',
    ]);
    expect(await cli.json(['settings'])).toMatchObject({ public_api: false });
  });

  it('asks for --as in a terminal for account commands too, checking the answer', async () => {
    const run = runInTerminal(cli, ['account', 'set-role', 'bob', 'editor', '--json']);
    await waitFor(run, /Act as which account \(--as\)\?/);
    run.type('carl\r');
    await waitFor(run, /\n> carl \(user\) may not change accounts: only an admin or superuser may/);
    run.type('\x15alice\r');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ username: 'bob', role: 'editor' });
  });

  it('what cannot be undone needs --yes without a terminal (exit 2, naming it)', async () => {
    for (const args of [
      ['account', 'delete', 'bob', '--as', 'alice'],
      ['token', 'prune', '--as', 'alice'],
      ['copy-database', 'postgres://archive@127.0.0.1:1/archive'],
    ]) {
      const r = await cli.run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe('error: --yes required when not running interactively: nothing was changed\n');
    }
    expect((await cli.json<{ username: string }[]>(['account', 'list'])).map((a) => a.username)).toContain('bob');
  });
});

describe('a bad option value', () => {
  it.each([
    [['token', 'list', '--status', 'actve'], '--status must be one of active, expired, revoked, got "actve"'],
    [['token', 'list', '--limit', '-1'], '--limit must be a whole number from 1 on, got "-1"'],
    [['token', 'list', '--limit', '0'], '--limit must be a whole number from 1 on, got "0"'],
    [
      ['token', 'create', 'bob', '--name', 'x', '--expires', 'tomorrow', '--as', 'alice'],
      '--expires must be a calendar date YYYY-MM-DD (UTC), got "tomorrow"',
    ],
    [
      ['account', 'create', 'eve', '--role', 'admn', '--as', 'alice'],
      'the role must be one of blocked, user, user_intern, loan_admin, editor, admin, superuser, got "admn"',
    ],
    [['audit', '--since', 'yesterday'], '--since must be a date YYYY-MM-DD, got "yesterday"'],
    [['settings', 'set', 'public_api', 'maybe', '--as', 'alice'], 'the value must be one of on, off, got "maybe"'],
  ])('%j exits 2 with one line: <what> must be <rule>, got "<value>"', async (args, message) => {
    const r = await cli.run(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: ${message}\n`);
  });

  it('a token id typed wrong is not found, plainly', async () => {
    const r = await cli.run(['token', 'show', 'nosuch']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: no token with id nosuch (an id is 8 letters and digits)\n');
  });
});
