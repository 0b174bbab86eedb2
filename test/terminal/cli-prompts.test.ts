// Issue 10, finding 9: destructive commands ask in a terminal (--yes skips; without a terminal
// --yes is required), interactive token create asks for the expiry, and Ctrl-C exits with 130.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { allTokens, BIN, childEnv, createAccounts, createToken, useSandbox, asAdministrator } from '../helpers/cli.js';
import { runInTerminal, waitFor } from './cli-terminal.js';

const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { root: 'superuser', alice: 'admin', bob: 'user', dan: 'user', eve: 'user' });
});

const accounts = async () => (await cli.json<{ username: string }[]>(['account', 'list'])).map((a) => a.username);

describe('account delete of an account with active tokens', () => {
  it('asks in a terminal; "n" keeps it', async () => {
    await createToken(cli, 'bob', 'keep', 'alice');
    const run = runInTerminal(cli, ['account', 'delete', 'bob', '--as', 'alice']);
    await waitFor(run, /Delete bob and its 1 active token\(s\)\? .*\(y\/N\)/);
    run.type('n\r');
    const r = await run.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cancelled: nothing was changed/);
    expect(await accounts()).toContain('bob');
  });

  it('deletes on "y"', async () => {
    await createToken(cli, 'dan', 'goes', 'alice');
    const run = runInTerminal(cli, ['account', 'delete', 'dan', '--as', 'alice']);
    await waitFor(run, /\(y\/N\)/);
    run.type('y\r');
    expect((await run.done).code).toBe(0);
    expect(await accounts()).not.toContain('dan');
  });

  it('does not ask with --yes, nor for an account without tokens; without a terminal it needs --yes', async () => {
    await createToken(cli, 'eve', 'x', 'alice');
    const r = await runInTerminal(cli, ['account', 'delete', 'eve', '--as', 'alice', '--yes']).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/\(y\/N\)/);
    await createAccounts(cli, { fay: 'user', gus: 'user' });
    await createToken(cli, 'fay', 'x', 'alice');
    const refused = await cli.run(['account', 'delete', 'fay', '--as', 'alice']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('error: --yes required when not running interactively: nothing was changed\n');
    expect(await accounts()).toContain('fay');
    const piped = await cli.run(['account', 'delete', 'fay', '--as', 'alice', '--yes']);
    expect(piped.code, piped.stderr).toBe(0);
    const none = await runInTerminal(cli, ['account', 'delete', 'gus', '--as', 'alice']).done;
    expect(none.code, none.stderr).toBe(0);
  });

  it('exits 130 on Ctrl-C at the question, deleting nothing', async () => {
    const run = runInTerminal(cli, ['account', 'delete', 'bob', '--as', 'alice']);
    await waitFor(run, /\(y\/N\)/);
    run.type('\x03');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(await accounts()).toContain('bob');
  });
});

describe('SIGINT sent to the process at a question (kill -INT)', () => {
  it('exits 130, changing nothing', async () => {
    const signals = new EventEmitter();
    const run = runInTerminal(cli, ['account', 'delete', 'bob', '--as', 'alice'], { signals });
    await waitFor(run, /\(y\/N\)/);
    signals.emit('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/interrupted/);
    expect(await accounts()).toContain('bob');
  });
});

describe('token prune', () => {
  it('asks in a terminal how many it deletes; --yes does not ask, and without a terminal it is required', async () => {
    const t = await createToken(cli, 'bob', 'to prune', 'alice');
    expect((await cli.run(['token', 'revoke', t.id, '--as', 'alice'])).code).toBe(0);
    const run = runInTerminal(cli, ['token', 'prune', '--as', 'alice']);
    await waitFor(run, /Delete 1 expired or revoked token\(s\) for good\? \(y\/N\)/);
    run.type('\r'); // the default is no
    expect((await run.done).code).toBe(1);
    expect((await allTokens(cli)).some((x) => x.id === t.id)).toBe(true);
    const unattended = await cli.run(['token', 'prune', '--as', 'alice']);
    expect(unattended.code).toBe(2);
    expect(unattended.stderr).toMatch(/^error: --yes required when not running interactively/);
    expect((await allTokens(cli)).some((x) => x.id === t.id)).toBe(true);
    const yes = await runInTerminal(cli, ['token', 'prune', '--yes', '--as', 'alice']).done;
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toMatch(/pruned 1 token/);
    const piped = await cli.run(['token', 'prune', ...(await asAdministrator(cli)), '--yes']);
    expect(piped.code).toBe(0);
  });
});

describe('interactive token create', () => {
  it('asks for the expiry; an empty answer means never', async () => {
    const run = runInTerminal(cli, ['token', 'create', 'bob', '--as', 'alice', '--name', 'asked', '--json']);
    await waitFor(run, /Last day of validity, YYYY-MM-DD \(UTC; empty: never expires\)\?/);
    run.type('2027-03-31\r');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.slice(r.stdout.indexOf('{')))).toMatchObject({ name: 'asked', expires: '2027-03-31' });
    const never = runInTerminal(cli, ['token', 'create', 'bob', '--as', 'alice', '--name', 'never', '--json']);
    await waitFor(never, /empty: never expires/);
    never.type('\r');
    const n = await never.done;
    expect(n.code, n.stderr).toBe(0);
    expect(JSON.parse(n.stdout.slice(n.stdout.indexOf('{')))).toMatchObject({ name: 'never', expires: null });
  });

  it('does not ask with --expires or --no-expires, nor without a terminal', async () => {
    const r = await runInTerminal(cli, ['token', 'create', 'bob', '--as', 'alice', '--name', 'flag', '--no-expires'])
      .done;
    expect(r.code, r.stderr).toBe(0);
    const piped = await createToken(cli, 'bob', 'piped', 'alice');
    expect(piped.expires).toBeNull();
  });
});

describe('Ctrl-C (SIGINT) during a command', () => {
  it('exits with status 130 in a real process', async () => {
    // copy-database to a "server" that accepts the connection and never answers: the command
    // is at work (waiting for the target) once the connection arrives.
    const sockets: Socket[] = [];
    const server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const connected = new Promise((resolve) => server.once('connection', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const child = spawn(
        process.execPath,
        [BIN, '--config', cli.configFile, 'copy-database', '--yes', `postgres://archive@127.0.0.1:${port}/archive`],
        { cwd: cli.dir, env: childEnv(cli.env), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        child.on('close', (code, signal) => resolve({ code, signal })),
      );
      await connected;
      child.kill('SIGINT');
      expect(await exited).toEqual({ code: 130, signal: null });
      expect(stderr).toMatch(/interrupted/);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});

describe('a missing argument asked in a terminal', () => {
  it('asks for the acting account and the name, and acts as the account typed', async () => {
    const run = runInTerminal(cli, ['token', 'create', 'bob', '--no-expires', '--json']);
    await waitFor(run, /Act as which account \(--as\)\?/);
    run.type('alice\r');
    await waitFor(run, /What is the token for \(--name\)\?/);
    run.type('typed name\r');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    // The questions go to stderr: stdout is the JSON alone.
    expect(JSON.parse(r.stdout)).toMatchObject({ account: 'bob', name: 'typed name', expires: null });
    const audit = await cli.json<{ actor: string; action: string; target: string }[]>(['audit']);
    expect(
      audit.some((e) => e.actor === 'alice' && e.action === 'token.create' && e.target.includes('typed name')),
    ).toBe(true);
  });

  it('never asks without a terminal: a missing --as is a usage error (exit 2)', async () => {
    const r = await cli.run(['token', 'create', 'bob', '--name', 'scripted']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing --as/);
    expect(r.stderr).not.toMatch(/Act as which account/);
    expect(r.stdout).toBe('');
  });

  it('ends with "cancelled" (exit 1) on Ctrl-D, creating nothing', async () => {
    const before = (await allTokens(cli)).length;
    const run = runInTerminal(cli, ['token', 'create', 'bob', '--as', 'alice', '--no-expires']);
    await waitFor(run, /What is the token for/);
    run.type('\x04');
    const r = await run.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cancelled: nothing was changed/);
    expect((await allTokens(cli)).length).toBe(before);
  });
});

describe('a secret typed in a terminal', () => {
  it('is read without echo: token lookup - finds the token, the value never on the screen', async () => {
    const t = await createToken(cli, 'bob', 'typed secret', 'alice');
    const run = runInTerminal(cli, ['token', 'lookup', '-', '--json']);
    await waitFor(run, /Token value:/);
    run.type(`${t.token}\r`);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: t.id, name: 'typed secret' });
    expect(run.screen()).not.toContain(t.token.slice(12, 52));
  });

  it('is read without echo for copy-database, and Ctrl-C at it exits 130', async () => {
    const run = runInTerminal(cli, ['copy-database']);
    await waitFor(run, /PostgreSQL URL of the target database:/);
    run.type('postgres://archive:s3cr3t-pw');
    run.type('\x03');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/interrupted/);
    expect(run.screen()).not.toContain('s3cr3t-pw');
  });
});
