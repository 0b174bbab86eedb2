// Node's compile cache (22.1 and later) runs whatever entry it finds for a file whose checksum
// and length match: whoever can write the cache directory decides what a command runs. Each test
// plants a poisoned entry for the bundle bin/archivectl loads, made as an attacker would (V8 code
// of a script of the same length, under the real file's checksum), and shows that the binary
// runs it only from a directory of the running user's own, never from one another user made or
// may write: not os.tmpdir()/node-compile-cache (node's default), not a cache directory of
// another user's, not one whose mode lets others in.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, REPO_ROOT, runRaw, type CliResult } from '../helpers/cli.js';
import { unlessCI } from '../helpers/system-tools.js';

const NO_CACHE = 'node has no compile cache before 22.1 (module.enableCompileCache is missing)';
// Typed by @types/node of node 20, which has none.
const hasCache = 'enableCompileCache' in module;
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const notRoot = hasCache
  ? unlessCI(isRoot ? null : 'planting a directory as another user (chown nobody) needs root')
  : null;

const BUNDLE = path.join(REPO_ROOT, 'dist', 'bundle', 'archivectl.cjs');
const crc = (b: Buffer): number => zlib.crc32(b) >>> 0;

let dir = '';
let marker = '';
/** node's cache folder for this node and user (`v24.9.0-x64-ef5a0af0-0`), holding a poisoned entry. */
let poisoned = '';

/**
 * A cache folder whose entry for the bundle runs `marker`'s writer instead: compiled from a
 * script of the bundle's length, its header given the bundle's checksum (node checks that and the
 * length, V8 only the length). Made by this node, as the attacker's own runs would.
 */
async function poisonedCache(): Promise<string> {
  const real = readFileSync(BUNDLE);
  // Node checks the length in bytes, V8 in UTF-16 units: the bundle's text beyond ASCII (help
  // texts' "…" and "—") is matched by as many extra bytes in a comment of the payload.
  const units = real.toString('utf8').length;
  const extra = real.length - units;
  const wide = '…'.repeat(Math.floor(extra / 2)) + (extra % 2 === 1 ? 'é' : '');
  const payload = `require('fs').writeFileSync(${JSON.stringify(marker)},'poisoned');//${wide}`;
  const evil = Buffer.from(payload.padEnd(units, ' '));
  expect(evil.length).toBe(real.length);
  expect(evil.toString('utf8').length).toBe(units);
  const gen = path.join(dir, 'gen');
  await mkdir(gen);
  await writeFile(path.join(gen, 'evil.js'), evil);
  const env = { ...childEnv(), NODE_COMPILE_CACHE: path.join(gen, 'cache') };
  for (const file of [path.join(gen, 'evil.js'), BUNDLE]) {
    execFileSync(process.execPath, ['-e', `require(${JSON.stringify(file)})`], { env, stdio: 'ignore' });
  }
  await rm(marker, { force: true });
  const [version] = await readdir(path.join(gen, 'cache'));
  const folder = path.join(gen, 'cache', version as string);
  const entries = await Promise.all(
    (await readdir(folder)).map(async (name) => ({ name, bytes: await readFile(path.join(folder, name)) })),
  );
  // Header: magic, source length, cache length, source CRC, cache CRC; then V8's code cache.
  const ofSource = (source: Buffer) => entries.find((e) => e.bytes.readUInt32LE(12) === crc(source));
  const evilEntry = ofSource(evil);
  const bundleEntry = ofSource(real);
  if (!evilEntry || !bundleEntry) throw new Error(`no cache entries made in ${folder}`);
  const forged = Buffer.from(evilEntry.bytes);
  forged.writeUInt32LE(bundleEntry.bytes.readUInt32LE(12), 12);
  await writeFile(path.join(folder, bundleEntry.name), forged);
  return folder;
}

/** Copies the poisoned folder into `cacheDir` (as node lays it out), then gives it all to `uid`. */
async function plant(cacheDir: string, owner: number | null, mode = 0o755): Promise<string> {
  const folder = path.join(cacheDir, path.basename(poisoned));
  await mkdir(cacheDir, { recursive: true });
  await cp(poisoned, folder, { recursive: true });
  for (const d of [cacheDir, folder]) await chmod(d, mode);
  if (owner !== null) {
    execFileSync('chown', ['-R', `${owner}:${owner}`, cacheDir]);
  }
  return folder;
}

function version(env: Record<string, string | undefined>): Promise<CliResult> {
  return runRaw(['--version'], { env: childEnv({ TMPDIR: path.join(dir, 'tmp'), ...env }), cwd: dir });
}

/** The run printed the version, from the real bundle: the poisoned entry did not run. */
function expectClean(r: CliResult): void {
  expect(r.stderr).toBe('');
  expect(r.stdout.trim()).toMatch(/^archivectl \d+\.\d+\.\d+ /);
  expect(existsSync(marker)).toBe(false);
}

describe.skipIf(!hasCache)(`the compile cache${hasCache ? '' : ` (${NO_CACHE})`}`, () => {
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'archivectl-compile-cache-')));
    await chmod(dir, 0o755);
    await mkdir(path.join(dir, 'tmp'), { mode: 0o1777 });
    await chmod(path.join(dir, 'tmp'), 0o1777);
    marker = path.join(dir, 'marker');
    poisoned = await poisonedCache();
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("lives in the user's own cache directory, created mode 0700, and is used from there", async () => {
    const home = path.join(dir, 'home-own');
    await mkdir(home, { mode: 0o700 });
    expectClean(await version({ XDG_CACHE_HOME: home }));
    const cacheDir = path.join(home, 'archivectl', 'compile-cache');
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(home, 'archivectl'))).mode & 0o777).toBe(0o700);
    expect(await readdir(cacheDir)).toHaveLength(1); // node's folder for this version, filled
    expect(existsSync(path.join(dir, 'tmp', 'node-compile-cache'))).toBe(false);
    // The same without XDG_CACHE_HOME: ~/.cache/archivectl/compile-cache.
    const other = path.join(dir, 'home-dot');
    await mkdir(other, { mode: 0o700 });
    expectClean(await version({ HOME: other, XDG_CACHE_HOME: undefined }));
    expect(await readdir(path.join(other, '.cache', 'archivectl', 'compile-cache'))).toHaveLength(1);
  });

  it('runs a poisoned entry there (the test poison is live on this node), so only the user may write it', async () => {
    const home = path.join(dir, 'home-poisoned-own');
    await mkdir(home, { mode: 0o700 });
    await plant(path.join(home, 'archivectl', 'compile-cache'), null, 0o700);
    await chmod(path.join(home, 'archivectl'), 0o700);
    const r = await version({ XDG_CACHE_HOME: home });
    expect(r.code).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('poisoned');
    await rm(marker);
  });

  it.skipIf(notRoot !== null)(
    `is not node's default, os.tmpdir()/node-compile-cache, planted there by another user${notRoot ? ` (${notRoot})` : ''}`,
    async () => {
      const home = path.join(dir, 'home-tmp');
      await mkdir(home, { mode: 0o700 });
      const planted = await plant(path.join(dir, 'tmp', 'node-compile-cache'), NOBODY);
      const before = await readdir(planted);
      expectClean(await version({ XDG_CACHE_HOME: home }));
      expect(await readdir(planted)).toEqual(before);
    },
  );

  it.skipIf(notRoot !== null)(
    `is not used from a cache directory that another user owns (sudo keeping HOME)${notRoot ? ` (${notRoot})` : ''}`,
    async () => {
      const theirs = path.join(dir, 'home-nobody');
      await mkdir(theirs, { mode: 0o700 });
      const planted = await plant(path.join(theirs, 'archivectl', 'compile-cache'), NOBODY, 0o700);
      await chown(theirs, NOBODY, NOBODY);
      const before = await readdir(planted);
      expectClean(await version({ XDG_CACHE_HOME: theirs }));
      expectClean(await version({ HOME: theirs, XDG_CACHE_HOME: undefined }));
      expect(await readdir(planted)).toEqual(before);
      // Nothing of root's was left in the other user's home.
      expect(existsSync(path.join(theirs, '.cache'))).toBe(false);
    },
  );

  it('is not used from a directory its group or others may write, or under one', async () => {
    // The cache directory itself with mode 0777, then 0770.
    for (const mode of [0o777, 0o770]) {
      const home = path.join(dir, `home-mode-${mode.toString(8)}`);
      await mkdir(home, { mode: 0o700 });
      const planted = await plant(path.join(home, 'archivectl', 'compile-cache'), null, mode);
      expectClean(await version({ XDG_CACHE_HOME: home }));
      expect(await readdir(planted)).toHaveLength((await readdir(poisoned)).length);
    }
    // A parent others may write (not sticky): they could swap the cache directory for their own.
    const shared = path.join(dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o777);
    expectClean(await version({ XDG_CACHE_HOME: shared }));
    expect(await readdir(shared)).toEqual([]); // nothing created there either
  });

  it.skipIf(notRoot !== null)(
    `stops with status 2 when NODE_COMPILE_CACHE names a directory another user may write${notRoot ? ` (${notRoot})` : ''}`,
    async () => {
      for (const [name, owner, mode] of [
        ['env-nobody', NOBODY, 0o755],
        ['env-open', null, 0o777],
      ] as const) {
        const cacheDir = path.join(dir, name);
        await plant(cacheDir, owner, mode);
        const r = await version({ NODE_COMPILE_CACHE: cacheDir });
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(/^archivectl: NODE_COMPILE_CACHE names a directory .*Unset NODE_COMPILE_CACHE/);
        expect(r.stderr).toContain(cacheDir);
        expect(existsSync(marker)).toBe(false);
      }
    },
  );
});
