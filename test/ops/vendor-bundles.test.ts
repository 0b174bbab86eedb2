// commander and knex run from the bundles the build writes to dist/vendor/, compiled from the
// code cache beside each (src/vendor/bundles.ts): what makes `archivectl token list` start in
// well under 150 ms. The build's cache must be one V8 takes; a cache that does not fit (another
// node, other flags, a damaged file) must cost only speed, never a failure.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundle, VENDOR_DIR } from '../../src/vendor/bundles.js';
import { REPO_ROOT } from '../helpers/cli.js';

const run = promisify(execFile);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-vendor-'));
  await copyFile(path.join(VENDOR_DIR, 'commander.cjs'), path.join(dir, 'commander.cjs'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the bundles of dist/vendor/', () => {
  it('load with their code caches taken, in a process started as bin/archivectl starts node', async () => {
    // No V8 flags, as the CLI runs: the flags are part of what a cache must fit.
    const script = `
      const { vendored, loadedBundle } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'vendor', 'bundles.js'))});
      const { Command } = vendored('commander');
      const { knex } = vendored('knex');
      const db = knex({ client: 'sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
      const [row] = await db.select(db.raw('41 + 1 as answer'));
      await db.destroy();
      console.log(JSON.stringify({
        command: new Command('x').name(),
        answer: row.answer,
        commander: loadedBundle('commander').cacheAccepted,
        knex: loadedBundle('knex').cacheAccepted,
      }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT });
    expect(JSON.parse(stdout)).toEqual({ command: 'x', answer: 42, commander: true, knex: true });
  });

  it('compile from source where the cache does not fit, and work the same', async () => {
    await writeFile(path.join(dir, 'commander.cjs.cache'), Buffer.alloc(4096, 0x5a));
    const bundle = loadBundle(path.join(dir, 'commander.cjs'));
    expect(bundle.cacheAccepted).toBe(false);
    const { Command } = bundle.exports as typeof import('commander');
    expect(new Command('y').option('--deep').parse(['--deep'], { from: 'user' }).opts()).toEqual({ deep: true });
  });

  it('compile from source where there is no cache', async () => {
    await rm(path.join(dir, 'commander.cjs.cache'), { force: true });
    const bundle = loadBundle(path.join(dir, 'commander.cjs'));
    expect(bundle.cacheAccepted).toBe(false);
    expect(typeof (bundle.exports as typeof import('commander')).Command).toBe('function');
  });

  it('name the missing file and the command that builds it', () => {
    const missing = path.join(dir, 'knex.cjs');
    expect(() => loadBundle(missing)).toThrow(`${missing} is missing: run "npm run build" (npm install runs it too)`);
  });
});
