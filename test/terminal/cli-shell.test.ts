// Issue 10, finding 11 and the shell around the CLI: -V, completion scripts generated from the
// command tree, and output cut short by `| head` (no EPIPE noise, exit status 0).
import { execFile } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, createAccounts, useSandbox } from '../helpers/cli.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';
import { seedTokens } from './cli-terminal.js';

const run = promisify(execFile);
// zsh -n checks the zsh script (Debian's zsh, installed by .ci/run).
const zsh = systemTool('zsh', 'zsh');
const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { root: 'superuser', bot: 'user' });
  await seedTokens(cli, 'bot', 5000);
}, 60_000);

/** Runs a bash pipeline with pipefail: its status is the first failing command's. */
async function pipeline(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run('bash', ['-o', 'pipefail', '-c', script], { cwd: cli.dir, env: childEnv(cli.env) });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe('version and help', () => {
  it('-V is --version', async () => {
    const short = await cli.run(['-V']);
    const long = await cli.run(['--version']);
    expect(short.code).toBe(0);
    expect(short.stdout).toMatch(/^archivectl \d+\.\d+\.\d+ \(database schema \d{14}_\w+\)\n$/);
    expect(short.stdout).toBe(long.stdout);
  });

  it('--help | head -1 prints one line and exits 0, with no EPIPE error', async () => {
    const r = await pipeline(`node ${q(BIN)} --help | head -1`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: archivectl/);
    expect(r.stderr).not.toMatch(/EPIPE|Error/);
  });

  it('token list | head -1 (5,000 rows) stops quietly with status 0', async () => {
    const r = await pipeline(`node ${q(BIN)} --config ${q(cli.configFile)} token list | head -1`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^ID +Account +Name +Kind +Status +Created +Last used +Expires +Scopes +Allowed from +Rate limit\n$/,
    );
    expect(r.stderr).toBe('');
  });
});

describe('archivectl completion', () => {
  it('prints a bash script that parses and completes commands and options from the command tree', async () => {
    const r = await cli.run(['completion', 'bash']);
    expect(r.code, r.stderr).toBe(0);
    const file = path.join(cli.dir, 'archivectl.bash');
    await writeFile(file, r.stdout);
    await run('bash', ['-n', file]);
    const complete = async (words: string[]) => {
      const script = `source ${q(file)}; COMP_WORDS=(${words.map(q).join(' ')}); COMP_CWORD=${words.length - 1}; _archivectl; printf '%s\\n' "\${COMPREPLY[@]}"`;
      return (await run('bash', ['-c', script])).stdout.split('\n').filter(Boolean);
    };
    expect(await complete(['archivectl', 'to'])).toEqual(['token']);
    expect(await complete(['archivectl', '--config', 'x.json', 'd'])).toEqual(['doctor']);
    expect(await complete(['archivectl', 'token', ''])).toContain('lookup');
    expect(await complete(['archivectl', 'token', 'list', '--exp'])).toEqual(['--expiring-within']);
    expect(await complete(['archivectl', 'backup', '--f'])).toEqual(['--force']);
  });

  it('completes values: roles, settings, --status, --kind, and usernames and token ids from the database', async () => {
    const r = await cli.run(['completion', 'bash']);
    const file = path.join(cli.dir, 'values.bash');
    await writeFile(file, r.stdout);
    // The script runs `archivectl` from PATH, as an installed one would.
    const bin = path.join(cli.dir, 'bin');
    await mkdir(bin, { recursive: true });
    await symlink(BIN, path.join(bin, 'archivectl')).catch(() => undefined);
    const env = childEnv(cli.env, { PATH: `${bin}:${process.env.PATH ?? ''}` });
    const complete = async (words: string[]) => {
      const script = `source ${q(file)}; COMP_WORDS=(${words.map(q).join(' ')}); COMP_CWORD=${words.length - 1}; _archivectl; printf '%s\n' "\${COMPREPLY[@]}"`;
      return (await run('bash', ['-c', script], { cwd: cli.dir, env })).stdout.split('\n').filter(Boolean);
    };
    const config = ['archivectl', '--config', cli.configFile];
    expect(await complete(['archivectl', 'account', 'create', 'x', '--role', 'ed'])).toEqual(['editor']);
    expect(await complete(['archivectl', 'account', 'set-role', 'bot', 's'])).toEqual(['superuser']);
    expect(await complete(['archivectl', 'settings', 'set', 'public_a'])).toEqual(['public_api', 'public_access']);
    expect(await complete(['archivectl', 'settings', 'set', 'public_api', ''])).toEqual(['on', 'off']);
    expect(await complete(['archivectl', 'token', 'list', '--status', ''])).toEqual(['active', 'expired', 'revoked']);
    expect(await complete(['archivectl', 'token', 'list', '--kind', 'l'])).toEqual(['legacy']);
    expect(await complete([...config, 'token', 'create', '--as', 'r'])).toEqual(['root']);
    expect(await complete([...config, 'account', 'show', ''])).toEqual(['bot', 'root']);
    const ids = await complete([...config, 'token', 'show', '']);
    expect(ids).toHaveLength(2000); // at most 2,000 offered: type a few characters first
    expect(ids.every((id) => /^[A-Za-z0-9]{8}$/.test(id))).toBe(true);
    // A value that takes no list (a name) offers nothing, not file names.
    expect(await complete(['archivectl', 'token', 'create', 'bot', '--name', ''])).toEqual([]);
    // No database to read: nothing, and no error on the screen.
    expect(await complete(['archivectl', '--config', '/nonexistent.json', 'account', 'show', ''])).toEqual([]);
  });

  it.skipIf(zsh.skip !== null)(`completes values in zsh too${zsh.skip ? ` — skipped: ${zsh.skip}` : ''}`, async () => {
    const r = await cli.run(['completion', 'zsh']);
    const file = path.join(cli.dir, '_values_archivectl');
    await writeFile(file, r.stdout);
    const bin = path.join(cli.dir, 'bin');
    await mkdir(bin, { recursive: true });
    await symlink(BIN, path.join(bin, 'archivectl')).catch(() => undefined);
    const env = childEnv(cli.env, { PATH: `${bin}:${process.env.PATH ?? ''}` });
    // compadd only works inside a completion widget: the script's value functions are asked directly.
    const script = `compdef() { :; }; source ${q(file)}; _archivectl_words "token list" --status ""; echo; _archivectl_words "account show" 1 ${q(cli.configFile)}; _archivectl_path token list --kind`;
    const out = (await run(pathOf(zsh, 'zsh'), ['-c', script], { cwd: cli.dir, env })).stdout;
    expect(out).toBe('active expired revoked\nbot\nroot\ntoken list|0');
  });

  it.skipIf(zsh.skip !== null)(
    `prints a zsh script that parses${zsh.skip ? ` — skipped: ${zsh.skip}` : ''}`,
    async () => {
      const r = await cli.run(['completion', 'zsh']);
      const file = path.join(cli.dir, '_archivectl');
      await writeFile(file, r.stdout);
      await run(pathOf(zsh, 'zsh'), ['-n', file]);
    },
  );

  it('prints a zsh script for compdef, and refuses another shell with exit status 2', async () => {
    const r = await cli.run(['completion', 'zsh']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^#compdef archivectl\n/);
    expect((await cli.run(['completion', 'fish'])).code).toBe(2);
  });
});
