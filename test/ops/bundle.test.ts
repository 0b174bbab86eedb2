// bin/archivectl runs the program as the build bundles it (dist/bundle/, `npm run build`:
// rolldown.config.js): CommonJS files that node loads itself, with source maps. What that must
// give users: stack traces that name src/*.ts lines, `--help` that loads no database code, and a
// packed install that runs (finding its package.json, and knex the migrations in the package's
// migrations/ directory).
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, lines, REPO_ROOT, type CliResult } from '../helpers/cli.js';
import { installLegOnly } from '../helpers/system-tools.js';
import { arcValue } from '../helpers/token-values.js';

const run = promisify(execFile);
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archivectl-bundle-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** `node <root>/bin/archivectl <args>` in `cwd`, as a user runs it. */
async function archivectl(root: string, args: string[], cwd: string): Promise<CliResult> {
  const bin = path.join(root, 'bin', 'archivectl');
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd, env: childEnv(), timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const { code, stdout = '', stderr = '' } = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof code !== 'number') throw err;
    return { code, stdout, stderr };
  }
}

/**
 * `serve` with a dataDir below a regular file: the daemon cannot start, and its journal line
 * (stdout, JSON) carries the error's stack. Returns the stack's frames.
 */
async function startupFailureFrames(root: string, dataDir = 'data'): Promise<string[]> {
  return (await startupFailure(root, dataDir)).frames;
}

/** As startupFailureFrames, with the fatal log line as written; `dataDir` below the regular file. */
async function startupFailure(root: string, dataDir: string): Promise<{ frames: string[]; line: string }> {
  const dir = await mkdtemp(path.join(tmp, 'serve-'));
  await writeFile(path.join(dir, 'a-file'), 'not a directory\n');
  const config = path.join(dir, 'config.json');
  await writeFile(
    config,
    JSON.stringify({ database: { filename: './archive.sqlite3' }, dataDir: `./a-file/${dataDir}` }),
  );
  const r = await archivectl(root, ['--config', config, 'serve', '--host', '127.0.0.1', '--port', '0'], dir);
  expect(r.code, r.stderr).toBe(1);
  const line = lines(r.stdout).find((l) => (JSON.parse(l) as { level: string }).level === 'fatal') ?? '';
  const fatal = JSON.parse(line || '{}') as { err?: { stack?: string } };
  expect(fatal.err?.stack, r.stdout).toBeDefined();
  return { frames: (fatal.err?.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)), line };
}

/** Checks that `frame` names a line of src/ (below `root`) that holds `text` in the checkout's src/. */
async function expectSourceLine(frame: string | undefined, root: string, text: string): Promise<void> {
  const at = /\((.+\.ts):(\d+):\d+\)$/.exec(frame ?? '');
  expect(at, `a frame naming a .ts file and line: ${frame}`).not.toBeNull();
  const [, file, line] = at as unknown as [string, string, string];
  expect(path.relative(root, file)).toMatch(/^src\/.+\.ts$/);
  const source = await readFile(path.join(REPO_ROOT, path.relative(root, file)), 'utf8');
  expect(source.split('\n')[Number(line) - 1]).toContain(text);
}

/** Frames that name a file of the bundle: code left unmapped (every file has a source map). */
const unmappedFrames = (frames: string[]) =>
  frames.filter((f) => f.includes(`${path.sep}dist${path.sep}bundle${path.sep}`));

describe('bin/archivectl', () => {
  it("names src/*.ts lines in a daemon error's stack trace", async () => {
    const frames = await startupFailureFrames(REPO_ROOT);
    // The error is made in src/http/startup.ts (StartupError); its first frame is that line.
    await expectSourceLine(frames[0], REPO_ROOT, 'StartupError');
    expect(frames.some((f) => f.includes(path.join(REPO_ROOT, 'src', 'cli', 'main.ts')))).toBe(true);
    expect(unmappedFrames(frames)).toEqual([]);
  });

  it('names them whole in a checkout below a folder named by a commit id, while token values are redacted', async () => {
    // The log's redaction took a 40-character commit id for a token value: `../[REDACTED]/src/…`.
    const root = path.join(tmp, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4', 'archivectl');
    await mkdir(path.join(root, 'dist'), { recursive: true });
    for (const part of ['bin', 'package.json', 'migrations', path.join('dist', 'bundle')]) {
      await cp(path.join(REPO_ROOT, part), path.join(root, part), { recursive: true });
    }
    await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
    const value = arcValue();
    const { frames, line } = await startupFailure(root, value);
    await expectSourceLine(frames[0], root, 'StartupError');
    expect(frames[0]).toContain(path.join(root, 'src', 'http', 'startup.ts'));
    expect(unmappedFrames(frames)).toEqual([]);
    expect(line).not.toContain('[REDACTED]/src');
    expect(line).toContain(`arc_${value.slice(4, 12)}[REDACTED]`);
    expect(line).not.toContain(value.slice(12));
  });

  it('--help loads no database code: it runs with every bundle file that holds some removed, and no node_modules', async () => {
    // A copy of what --help could need: bin/, package.json and the bundle, less each file that
    // holds database code, src/db/ or knex, as its source map names them. No node_modules beside
    // it: no driver either.
    const root = path.join(tmp, 'help-only');
    await mkdir(path.join(root, 'dist'), { recursive: true });
    await cp(path.join(REPO_ROOT, 'bin'), path.join(root, 'bin'), { recursive: true });
    await cp(path.join(REPO_ROOT, 'package.json'), path.join(root, 'package.json'));
    await cp(path.join(REPO_ROOT, 'dist', 'bundle'), path.join(root, 'dist', 'bundle'), { recursive: true });
    const bundle = path.join(root, 'dist', 'bundle');
    const removed = { src: [] as string[], knex: [] as string[] };
    // rolldown's runtime helpers hold no source of the project's (and have no map).
    const mapped = (await readdir(bundle)).filter((f) => f.endsWith('.cjs') && !f.startsWith('rolldown-runtime-'));
    for (const file of mapped) {
      const map = JSON.parse(await readFile(path.join(bundle, `${file}.map`), 'utf8')) as { sources: string[] };
      const knex = map.sources.some((s) => s.includes('/node_modules/knex/'));
      if (knex || map.sources.some((s) => s.startsWith('../../src/db/'))) {
        await rm(path.join(bundle, file));
        removed[knex ? 'knex' : 'src'].push(file);
      }
    }
    expect(removed.src.length).toBeGreaterThan(0);
    expect(removed.knex.length).toBeGreaterThan(0);

    const help = await archivectl(root, ['--help'], root);
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(lines(help.stdout)[0]).toBe('Usage: archivectl [options] [command]');
    expect(help.stdout).toContain('token');
    // A command that opens the database needs what was removed.
    const list = await archivectl(root, ['--config', path.join(root, 'none.json'), 'token', 'list'], root);
    expect(list.code).not.toBe(0);
  });
});

const installSkip = installLegOnly();

describe.skipIf(installSkip !== null)(`a packed install${installSkip ? ` — skipped: ${installSkip}` : ''}`, () => {
  let root: string;
  beforeAll(async () => {
    // What `npm pack` puts in the tarball, unpacked; its dependencies are the checkout's own
    // (installing them would fetch and compile packages).
    const packs = path.join(tmp, 'packs');
    await mkdir(packs);
    const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packs], {
      cwd: REPO_ROOT,
    });
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    await run('tar', ['-xzf', path.join(packs, path.basename(filename)), '-C', packs]);
    root = path.join(packs, 'package');
    await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  });

  it('migrates a new database from the migrations it carries, then runs commands on it', async () => {
    const dir = await mkdtemp(path.join(tmp, 'install-'));
    const config = path.join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ database: { filename: './archive.sqlite3' }, dataDir: './data' }));
    const migrated = await archivectl(root, ['--config', config, 'migrate'], dir);
    expect(migrated.code, migrated.stderr).toBe(0);
    const shipped = (await readdir(path.join(root, 'migrations'))).filter((f) => f.endsWith('.js')).sort();
    expect(shipped.length).toBeGreaterThan(0);
    expect(migrated.stderr.trim()).toBe(`applied: ${shipped.join(', ')}`);

    const created = await archivectl(
      root,
      ['--config', config, 'account', 'create', 'root', '--role', 'superuser'],
      dir,
    );
    expect(created.code, created.stderr).toBe(0);
    const listed = await archivectl(root, ['--config', config, 'account', 'list', '--json'], dir);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ username: 'root', role: 'superuser' })]);
  });

  it("prints the package's version, read from its package.json", async () => {
    const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const r = await archivectl(root, ['--version'], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(
      new RegExp(`^archivectl ${version.replace(/\./g, '\\.')} \\(database schema \\d{14}_\\w+\\)$`),
    );
  });

  it("names src/*.ts lines in a daemon error's stack trace", async () => {
    const frames = await startupFailureFrames(root);
    await expectSourceLine(frames[0], root, 'StartupError');
    expect(unmappedFrames(frames)).toEqual([]);
  });
});
