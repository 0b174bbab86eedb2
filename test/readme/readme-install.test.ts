// The README's ways of putting archivectl on PATH, replayed in a copy of the checkout (npm runs
// "prepare" there, which rebuilds dist/ and the manual page): `npm install -g .` into a
// temporary prefix, and `npm pack` with its tarball installed into an empty prefix (the
// production install of docs/operations.md). Each gives a working `archivectl`, and
// `man archivectl` finds the manual page with MANPATH pointing into the prefix. sqlite3 is
// installed from the checkout's own build (offerSqliteBuild), not compiled a second time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IS_PG, TOKEN_VALUE_RE } from '../helpers/cli.js';
import { installLegOnly, pathOf, systemTool } from '../helpers/system-tools.js';
import { copyCheckout, offerSqliteBuild, runScript, tarballName } from './readme-replay.js';

const man = systemTool('man', 'man-db');
const skip = installLegOnly() ?? (IS_PG ? 'runs in the SQLite pass (nothing here uses PostgreSQL)' : man.skip);
const version = tarballName().replace(/^archivectl-|\.tgz$/g, '');

describe.skipIf(skip !== null)(`archivectl installed as the README says${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let root = '';
  let checkout = '';

  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'archivectl-install-'));
    checkout = path.join(root, 'checkout');
    copyCheckout(checkout);
    offerSqliteBuild(root);
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** `archivectl` and `man archivectl` from a prefix, in a directory of its own with a config. */
  async function useFrom(prefix: string): Promise<void> {
    const work = path.join(prefix, 'work');
    mkdirSync(work);
    writeFileSync(path.join(work, 'config.json'), '{}');
    const env = {
      PATH: `${path.join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
      MANPATH: path.join(prefix, 'share', 'man'),
    };
    const sh = async (command: string): Promise<string> => {
      const r = await runScript(command, { cwd: work, env });
      expect(r.code, `${command}: ${r.stderr}`).toBe(0);
      return r.stdout.trim();
    };
    expect(await sh('command -v archivectl')).toBe(path.join(prefix, 'bin', 'archivectl'));
    expect(await sh('archivectl --version')).toMatch(
      new RegExp(`^archivectl ${version.replace(/\./g, '\\.')} \\(database schema `),
    );
    await sh('archivectl migrate');
    await sh('archivectl account create root --role superuser');
    await sh('archivectl account create bot --role user --as root');
    expect(await sh('archivectl token create bot --name smoke --as root')).toMatch(TOKEN_VALUE_RE);
    const accounts = JSON.parse(await sh('archivectl account list --json')) as { username: string }[];
    expect(accounts.map((a) => a.username).sort()).toEqual(['bot', 'root']);
    const page = await runScript(`${JSON.stringify(pathOf(man, 'man'))} archivectl`, { cwd: work, env });
    expect(page.code, page.stderr).toBe(0);
    expect(page.stdout).toMatch(/^NAME\n\s+archivectl - /m);
    expect(page.stdout).toContain('token revoke');
  }

  it('npm install -g . (the checkout linked into the prefix, built by prepare)', async () => {
    const prefix = path.join(root, 'global');
    const r = await runScript('npm install -g .', {
      cwd: checkout,
      env: { npm_config_prefix: prefix },
      timeoutMs: 240_000,
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(existsSync(path.join(checkout, 'man', 'archivectl.1'))).toBe(true);
    await useFrom(prefix);
  }, 300_000);

  it('npm pack, its tarball installed into an empty prefix (with docs/, without src/ and test/)', async () => {
    const packed = await runScript('npm pack', { cwd: checkout, timeoutMs: 240_000 });
    expect(packed.code, `${packed.stdout}\n${packed.stderr}`).toBe(0);
    const tarball = path.join(checkout, tarballName());
    const files = execFileSync('tar', ['-tzf', tarball]).toString('utf8').split('\n');
    for (const needed of ['package/bin/archivectl', 'package/man/archivectl.1', 'package/docs/operations.md'])
      expect(files).toContain(needed);
    expect(files.filter((f) => /^package\/(src|test|bench)\//.test(f))).toEqual([]);
    const prefix = path.join(root, 'empty');
    mkdirSync(prefix);
    const r = await runScript(`npm install -g ${JSON.stringify(tarball)}`, {
      cwd: root,
      env: { npm_config_prefix: prefix },
      timeoutMs: 240_000,
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(existsSync(path.join(prefix, 'lib', 'node_modules', 'archivectl', 'docs', 'operations.md'))).toBe(true);
    await useFrom(prefix);
  }, 300_000);
});
