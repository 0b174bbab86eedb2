// bin/archivectl runs the program as the build bundles it, each file compiled from the V8 code
// cache beside it (src/load-bundle.ts): what makes `archivectl --help` and `token list` start
// fast. The build's caches must be ones V8 takes; a cache that does not fit (another node,
// other V8 flags, a damaged file) or is missing must cost only speed, never a failure.
import { execFile } from 'node:child_process';
import { copyFile, cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_DIR, loadBundle } from '../../src/load-bundle.js';
import { collector, REPO_ROOT } from '../helpers/cli.js';

type Main = (argv: string[], io: object) => Promise<number>;
const run = promisify(execFile);
let copy: string;
let root: string;
beforeAll(async () => {
  // The package as the bundle expects to find it around itself: dist/bundle/ and package.json.
  root = await mkdtemp(path.join(os.tmpdir(), 'archivectl-bundle-'));
  copy = path.join(root, 'dist', 'bundle');
  await cp(BUNDLE_DIR, copy, { recursive: true });
  await copyFile(path.join(REPO_ROOT, 'package.json'), path.join(root, 'package.json'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `archivectl --help` run from the bundle in `dir`: its exit status and the first line it printed. */
async function helpFrom(dir: string) {
  const bundle = loadBundle(dir);
  const out = collector();
  const status = await (bundle.exports as { main: Main }).main(['node', 'archivectl', '--help'], {
    stdout: out.stream,
  });
  return { status, firstLine: out.text().split('\n')[0], bundle };
}

describe('the bundle bin/archivectl runs', () => {
  it('is compiled from caches V8 takes, in a process started as bin/archivectl starts node', async () => {
    // No V8 flags, as the CLI runs: a cache must fit the flags too. token list on a database
    // that does not exist fails, after loading the file that holds the commands.
    const script = `
      const { loadBundle } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'load-bundle.js'))});
      const { exports, files } = loadBundle();
      const { PassThrough } = await import('node:stream');
      const io = { stdout: new PassThrough(), stderr: new PassThrough(), cwd: ${JSON.stringify(os.tmpdir())}, env: {} };
      const help = await exports.main(['node', 'archivectl', '--help'], io);
      const afterHelp = [...files.keys()].map((f) => f.split('/').pop()).sort();
      await exports.main(['node', 'archivectl', '--config', '/nonexistent/config.json', 'token', 'list'], io);
      const taken = Object.fromEntries([...files].map(([f, l]) => [f.split('/').pop(), l.cacheAccepted]));
      console.log(JSON.stringify({ help, afterHelp, taken }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT });
    const { help, afterHelp, taken } = JSON.parse(stdout) as {
      help: number;
      afterHelp: string[];
      taken: Record<string, boolean>;
    };
    expect(help).toBe(0);
    // --help reads the command tree only; token list reads what the commands share with the
    // daemon and what they alone need, never the daemon's own file.
    expect(afterHelp).not.toContain('shared.cjs');
    expect(afterHelp).not.toContain('commands.cjs');
    const files = (await readdir(BUNDLE_DIR)).filter((f) => f.endsWith('.cjs'));
    expect(files).toContain('daemon.cjs');
    expect(Object.keys(taken).sort()).toEqual(files.filter((f) => f !== 'daemon.cjs').sort());
    for (const file of Object.keys(taken)) expect({ file, taken: taken[file] }).toEqual({ file, taken: true });
  });

  it('is compiled from source where a cache does not fit, and works the same', async () => {
    for (const file of await readdir(copy)) {
      if (file.endsWith('.cache')) await writeFile(path.join(copy, file), Buffer.alloc(4096, 0x5a));
    }
    const { status, firstLine, bundle } = await helpFrom(copy);
    expect({ status, firstLine }).toEqual({ status: 0, firstLine: 'Usage: archivectl [options] [command]' });
    expect([...bundle.files.values()].map((f) => f.cacheAccepted)).not.toContain(true);
  });

  it('is compiled from source where there is no cache', async () => {
    for (const file of await readdir(copy)) if (file.endsWith('.cache')) await rm(path.join(copy, file));
    const { status, firstLine, bundle } = await helpFrom(copy);
    expect({ status, firstLine }).toEqual({ status: 0, firstLine: 'Usage: archivectl [options] [command]' });
    expect([...bundle.files.values()].map((f) => f.cacheAccepted)).not.toContain(true);
  });

  it('names the missing file and the command that builds it', () => {
    const empty = path.join(root, 'dist');
    expect(() => loadBundle(empty)).toThrow(
      `${path.join(empty, 'archivectl.cjs')} is missing: run "npm run build" (npm install runs it too)`,
    );
  });
});
