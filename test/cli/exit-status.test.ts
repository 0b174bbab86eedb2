// docs/cli.md: exit status 0 done, 1 refused or failed (not found, not allowed, invalid input),
// 2 usage or configuration error; no stack traces for user errors.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  allTokens,
  createAccounts,
  createToken,
  legacyValue,
  lines,
  REPO_ROOT,
  STACK_FRAME_RE,
  useSandbox,
  type CliResult,
  asAdministrator,
} from '../helpers/cli.js';
import { newestMigration } from '../helpers/migrations.js';

// The tests only read, or change accounts and tokens of their own: they run concurrently.
const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { alice: 'admin', bob: 'user', nameless: 'user' });
});

/** A user error: the given status, nothing on stdout, no stack trace, `error:` first. */
function expectUserError(r: CliResult, code: 1 | 2, mentions: string | RegExp, opts: { oneLine?: boolean } = {}): void {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
  expect(r.stderr).not.toMatch(/\.(js|ts):\d+/); // no source locations
  expect(lines(r.stderr)[0]).toMatch(/^error: /);
  if (typeof mentions === 'string') expect(r.stderr).toContain(mentions);
  else expect(r.stderr).toMatch(mentions);
  if (opts.oneLine !== false) expect(lines(r.stderr)).toHaveLength(1);
  // commander's own messages may be followed by one hint line, and nothing else.
  else expect(lines(r.stderr).slice(1)).toEqual(lines(r.stderr).length > 1 ? [HELP_HINT] : []);
}

const HELP_HINT = '(run with --help for usage)';

describe.concurrent('exit status 0', () => {
  it('prints the version of package.json with --version', async () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await cli.run(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`archivectl ${pkg.version} (database schema ${newestMigration()})`);
  });

  it('prints usage with --help, naming the commands', async () => {
    const r = await cli.run(['--help']);
    expect(r.code).toBe(0);
    for (const cmd of ['account', 'token', 'settings', 'audit']) expect(r.stdout).toContain(cmd);
  });

  it('ignores ARCHIVECTL_NOW, even a malformed one: the clock cannot be pinned from outside', async () => {
    const r = await cli.run(['account', 'list', '--json'], { env: { ARCHIVECTL_NOW: 'yesterday' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('prints usage of a command with <command> --help', async () => {
    const r = await cli.run(['token', 'create', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--expires');
    expect(r.stdout).toContain('--as');
  });
});

describe.concurrent('exit status 2: usage errors', () => {
  // commander adds a hint line "(run with --help for usage)" after its own messages.
  it('stops on an unknown command', async () => {
    expectUserError(await cli.run(['frobnicate']), 2, 'frobnicate', { oneLine: false });
  });

  it('stops on an unknown subcommand', async () => {
    expectUserError(await cli.run(['token', 'frobnicate']), 2, 'frobnicate', { oneLine: false });
  });

  it('stops on an unknown option', async () => {
    expectUserError(await cli.run(['token', 'list', '--bogus']), 2, '--bogus', { oneLine: false });
    expectUserError(await cli.run(['--bogus', 'account', 'list']), 2, '--bogus', { oneLine: false });
  });

  it('stops on a missing argument or required option', async () => {
    expectUserError(await cli.run(['account', 'create', 'zed']), 2, '--role', { oneLine: false });
    expectUserError(await cli.run(['account', 'show']), 2, 'username', { oneLine: false });
    expectUserError(await cli.run(['token', 'revoke', '--as', 'alice']), 2, 'id', { oneLine: false });
    expectUserError(await cli.run(['token', 'create', 'bob', '--name', 'x', '--as']), 2, '--as', { oneLine: false });
  });

  it('stops on token create without --name when there is no terminal to ask', async () => {
    expectUserError(await cli.run(['token', 'create', 'nameless', '--as', 'alice']), 2, '--name');
    expect(await cli.json(['token', 'list', 'nameless', '--all'])).toEqual([]);
  });
});

describe.concurrent('exit status 1: not found', () => {
  it.each([
    [['account', 'show', 'nobody']],
    [['account', 'set-role', 'nobody', 'user', '--as', 'alice']],
    [['account', 'delete', 'nobody', '--as', 'alice', '--yes']],
    [['token', 'list', 'nobody']],
    [['token', 'handoff', 'nobody', '--as', 'alice']],
    [['token', 'create', 'nobody', '--name', 'x', '--as', 'alice']],
  ])('%j names the unknown account on one line', async (args) => {
    expectUserError(await cli.run(args), 1, 'nobody');
  });

  it.each([[['token', 'revoke', 'Zz9Zz9Zz', '--as', 'alice']], [['token', 'rotate', 'Zz9Zz9Zz', '--as', 'alice']]])(
    '%j names the unknown token id on one line',
    async (args) => {
      expectUserError(await cli.run(args), 1, 'Zz9Zz9Zz');
    },
  );
});

describe.concurrent('exit status 1: invalid input, refusals', () => {
  it('refuses an unknown role as a bad option value (exit 2)', async () => {
    expectUserError(await cli.run(['account', 'create', 'zed', '--role', 'king', '--as', 'alice']), 2, 'king');
    expect((await cli.json<{ username: string }[]>(['account', 'list'])).map((a) => a.username)).not.toContain('zed');
  });

  it('refuses an invalid username', async () => {
    expectUserError(
      await cli.run(['account', 'create', 'bad name!', '--role', 'user', '--as', 'alice']),
      1,
      'bad name!',
    );
  });

  it('refuses the reserved username "system" (the actor of settings changes in audit logs of earlier versions)', async () => {
    expectUserError(await cli.run(['account', 'create', 'system', '--role', 'user', '--as', 'alice']), 1, 'system');
  });

  it('refuses an account that exists already', async () => {
    expectUserError(await cli.run(['account', 'create', 'bob', '--role', 'admin', '--as', 'alice']), 1, 'bob');
    expect(
      (await cli.json<{ username: string; role: string }[]>(['account', 'list'])).find((a) => a.username === 'bob')
        ?.role,
    ).toBe('user');
  });

  it('refuses set-role with an unknown role (exit 2), leaving the role unchanged', async () => {
    expectUserError(await cli.run(['account', 'set-role', 'bob', 'king', '--as', 'alice']), 2, 'king');
    expect((await cli.json<{ role: string }>(['account', 'show', 'bob'])).role).toBe('user');
  });

  it('refuses an empty token name', async () => {
    expectUserError(await cli.run(['token', 'create', 'bob', '--name', '   ', '--as', 'alice']), 1, /name/);
  });

  it('refuses a forbidden action on one line', async () => {
    expectUserError(await cli.run(['token', 'create', 'alice', '--name', 'x', '--as', 'bob']), 1, 'bob');
  });
});

describe.concurrent('accounts', () => {
  it('set-role changes the role, shown by account show and list', async () => {
    await createAccounts(cli, { rita: 'user' });
    await cli.json(['account', 'set-role', 'rita', 'editor', ...(await asAdministrator(cli))]);
    expect((await cli.json<{ role: string }>(['account', 'show', 'rita'])).role).toBe('editor');
    // An editor still may not create tokens; an admin may, once promoted.
    expect((await cli.run(['token', 'create', 'bob', '--name', 'by rita', '--as', 'rita'])).code).toBe(1);
    await cli.json(['account', 'set-role', 'rita', 'admin', ...(await asAdministrator(cli))]);
    expect((await createToken(cli, 'bob', 'by rita', 'rita')).account).toBe('bob');
  });

  it('delete removes the account and its tokens', async () => {
    await createAccounts(cli, { dora: 'user' });
    const t = await createToken(cli, 'dora', 'doomed', 'alice');
    await cli.json(['account', 'delete', 'dora', ...(await asAdministrator(cli)), '--yes']);
    expect((await cli.json<{ username: string }[]>(['account', 'list'])).map((a) => a.username)).not.toContain('dora');
    expect((await allTokens(cli)).map((x) => x.id)).not.toContain(t.id);
    expect((await cli.run(['account', 'show', 'dora'])).code).toBe(1);
  });

  it('prints people-readable output without --json', async () => {
    const list = await cli.run(['account', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('alice');
    expect(list.stdout).toContain('admin');
    const show = await cli.run(['account', 'show', 'bob']);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('bob');
  });
});

// The tests above call main() in this process; these run `node bin/archivectl` itself, whose
// process exit status, pipes and environment are the ones a shell sees.
describe.concurrent('the binary, as a process', () => {
  const spawned = { spawn: true } as const;

  it('exits 0 with the version', async () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await cli.run(['--version'], spawned);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`archivectl ${pkg.version} (database schema ${newestMigration()})`);
  });

  it('exits 2 on a usage error and 1 on a refusal, with one line and no stack trace', async () => {
    expectUserError(await cli.run(['frobnicate'], spawned), 2, 'frobnicate', { oneLine: false });
    expectUserError(await cli.run(['account', 'show', 'nobody'], spawned), 1, 'nobody');
    expectUserError(await cli.run(['token', 'create', 'nameless', '--as', 'alice'], spawned), 2, '--name');
  });

  it('exits 2 on a configuration error', async () => {
    const file = path.join(cli.dir, 'colourful.json');
    writeFileSync(file, JSON.stringify({ colour: 'blue' }));
    const r = await cli.run(['account', 'list'], { ...spawned, config: file });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('"colour"');
    expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
  });

  it('reads the acting account from its environment and "-" from a real pipe', async () => {
    const r = await cli.run(['token', 'import-legacy', '-', '--json'], {
      ...spawned,
      env: { ARCHIVECTL_AS: 'alice' },
      input: `username,token,name\nbob,${legacyValue()},through a pipe\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ imported: 1, skipped: 0 });
  });
});
