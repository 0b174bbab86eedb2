// Issue 10, finding 12: `npm ci --omit=dev` failed because "prepare" ran tsc, a dev dependency.
// prepare now builds only where the build's tool (rolldown) is installed, and the package carries what a
// production install needs (bin/, dist/bundle/, migrations/), so a packed tarball installs with
// `npm install -g` and puts archivectl on PATH (test/ops/bundle.test.ts runs one).
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { installLegOnly } from '../helpers/system-tools.js';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function prepareIn(withDist: boolean): Promise<{ code: number; stderr: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-prepare-'));
  dirs.push(dir);
  await mkdir(path.join(dir, 'scripts'));
  await copyFile(path.join(REPO_ROOT, 'scripts', 'prepare.js'), path.join(dir, 'scripts', 'prepare.js'));
  await writeFile(path.join(dir, 'package.json'), '{"type":"module"}');
  if (withDist) {
    await mkdir(path.join(dir, 'dist', 'bundle'), { recursive: true });
    await writeFile(path.join(dir, 'dist', 'bundle', 'archivectl.cjs'), '');
  }
  try {
    const r = await run(process.execPath, [path.join(dir, 'scripts', 'prepare.js')], { cwd: dir });
    return { code: 0, stderr: r.stderr };
  } catch (err) {
    return { code: (err as { code: number }).code, stderr: (err as { stderr: string }).stderr };
  }
}

describe('npm prepare', () => {
  it('skips the build, with a note, where rolldown is missing and the bundle is built', async () => {
    const r = await prepareIn(true);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/rolldown is not installed .*using the dist\/bundle\/ already built/);
  });

  it('fails, saying why, where there is neither rolldown nor a bundle', async () => {
    const r = await prepareIn(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no dist\/bundle\/ and no rolldown/);
  });
});

const installSkip = installLegOnly();

describe.skipIf(installSkip !== null)(`npm pack${installSkip ? ` — skipped: ${installSkip}` : ''}`, () => {
  it('packs bin/, the bundle with its source maps, migrations/ and the operator files, and neither src/ nor test/', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT });
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
    // The operator's files too: the unit, the manual page and the completions (prepare writes the
    // last three; the production install puts them where systemd, man, bash and zsh look).
    for (const needed of [
      'bin/archivectl',
      'dist/bundle/archivectl.cjs',
      'package.json',
      'scripts/prepare.js',
      'systemd/archivectl.service',
      'man/archivectl.1',
      'completion/archivectl.bash',
      'completion/_archivectl',
    ]) {
      expect(files).toContain(needed);
    }
    // Each file of the bundle ships with the source map it names (stack traces name src/ lines),
    // and nothing else of dist/: bin/archivectl runs the bundle only.
    // rolldown's own runtime helpers, when shared by several files, are a file of their own with
    // no source of the project's in it: nothing to map.
    const bundled = files.filter(
      (f) => f.startsWith('dist/bundle/') && f.endsWith('.cjs') && !f.startsWith('dist/bundle/rolldown-runtime-'),
    );
    expect(bundled.length).toBeGreaterThan(1);
    const maps: string[] = [];
    for (const file of bundled) {
      const named = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(await readFile(path.join(REPO_ROOT, file), 'utf8'));
      if (named) maps.push(`dist/bundle/${named[1]}`);
    }
    expect(maps).toContain('dist/bundle/archivectl.cjs.map');
    expect(maps).toHaveLength(bundled.length);
    for (const map of maps) expect(files).toContain(map);
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/bundle/'))).toEqual([]);
    expect(files.some((f) => f.startsWith('migrations/') && f.endsWith('.js'))).toBe(true);
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('bench/'))).toBe(false);
  });
});
