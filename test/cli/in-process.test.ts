// The CLI as a function: `main(argv, io)` of src/cli/main.ts runs one command with the given
// streams, environment, working directory and clock, and importing the module does nothing.
// This is what lets tests pin the clock without an environment variable in the product.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, createAccounts, legacyValue, REPO_ROOT, useSandbox } from '../helpers/cli.js';

const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { alice: 'admin', bob: 'user' });
});

const loadMain = () => import('../../src/cli/main.js');

function sink(): { stream: Writable; text: () => string } {
  const parts: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      parts.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => parts.join('') };
}

/** Runs main in this process; nothing of this process's own stdout, stderr or env is used. */
async function inProcess(
  args: string[],
  io: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; now?: string } = {},
) {
  const { main } = await loadMain();
  const out = sink();
  const err = sink();
  const at = io.now === undefined ? undefined : Date.parse(io.now);
  const code = await main([process.execPath, BIN, ...args], {
    stdout: out.stream,
    stderr: err.stream,
    stdin: Readable.from([Buffer.from(io.input ?? '')]),
    env: io.env ?? childEnv(cli.env),
    cwd: io.cwd ?? cli.dir,
    ...(at === undefined ? {} : { clock: { now: () => new Date(at) } }),
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('main(argv, io)', () => {
  it('does nothing when the built entry (what bin/archivectl loads) is loaded: no output, exit status 0', async () => {
    const entry = path.join(REPO_ROOT, 'dist', 'bundle', 'archivectl.cjs');
    const r = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', `require(${JSON.stringify(entry)});`, 'account', 'list'], {
        cwd: cli.dir,
        env: childEnv(cli.env),
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(r).toEqual({ code: 0, out: '' });
  });

  it('writes to the given stdout and stderr, reading ./config.json of the given working directory', async () => {
    const r = await inProcess(['account', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { username: string }[]).map((a) => a.username)).toEqual(['alice', 'bob']);
  });

  it('takes the acting account from the given environment', async () => {
    const r = await inProcess(['token', 'create', 'bob', '--name', 'in-process env', '--json'], {
      env: childEnv(cli.env, { ARCHIVECTL_AS: 'alice' }),
    });
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as { id: string }).id;
    const audit = await cli.json<{ actor: string; action: string; target: string }[]>(['audit']);
    expect(audit.some((e) => e.actor === 'alice' && e.action === 'token.create' && e.target.includes(id))).toBe(true);
  });

  it('uses the given clock for what it creates and lists', async () => {
    const r = await inProcess(
      ['token', 'create', 'bob', '--name', 'in-process clock', '--as', 'alice', '--expires', '2026-11-20', '--json'],
      {
        now: '2026-11-20T12:00:00Z',
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const t = JSON.parse(r.stdout) as { id: string; created: string; status: string };
    expect(t.created).toBe('2026-11-20T12:00:00.000Z');
    const later = await inProcess(['token', 'list', 'bob', '--all', '--json'], { now: '2026-11-21T00:00:00Z' });
    expect((JSON.parse(later.stdout) as { id: string; status: string }[]).find((x) => x.id === t.id)?.status).toBe(
      'expired',
    );
  });

  it('reads "-" from the given stdin', async () => {
    const value = legacyValue();
    const r = await inProcess(['token', 'import-legacy', '-', '--as', 'alice', '--json'], {
      input: `username,token,name\nbob,${value},from io stdin\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ imported: 1, skipped: 0 });
  });

  it("prints commander's messages on the given stderr and returns the exit status", async () => {
    const r = await inProcess(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('frobnicate');
    const help = await inProcess(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('account');
  });

  it('prints a user error as one line on the given stderr', async () => {
    const r = await inProcess(['account', 'show', 'nobody']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: no account named "nobody"\n');
  });
});
