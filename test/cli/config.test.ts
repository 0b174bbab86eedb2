// docs/configuration.md: --config or ARCHIVE_CONFIG (else ./config.json, else defaults); bad configuration
// stops with one line naming the key and the file, exit status 2; relative paths are resolved
// against the config file's directory; the SQLite file is created with mode 0600.
import { existsSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IS_PG, lines, STACK_FRAME_RE, useSandbox, type CliResult } from '../helpers/cli.js';
import { own, runUnprivileged, unprivilegedSkip } from './unprivileged.js';

const cli = useSandbox();
let n = 0;

/** A fresh directory inside the sandbox, with a config.json of the given content. */
async function configIn(content: string | object, name = 'config.json'): Promise<{ dir: string; file: string }> {
  n += 1;
  const dir = path.join(cli.dir, `case${n}`);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  // Mode 0600 whatever the umask: a file its group may write is refused (file-trust.test.ts).
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o600 });
  return { dir, file };
}

function expectConfigError(r: CliResult, file: string, key?: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(lines(r.stderr)).toHaveLength(1);
  expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
  expect(r.stderr).toContain(file);
  if (key) expect(r.stderr).toContain(`"${key}"`);
}

describe.concurrent('bad configuration stops with exit 2 and one line naming the key and the file', () => {
  it('an unknown key', async () => {
    const { dir, file } = await configIn({ database: { filename: './db.sqlite3' }, colour: 'blue' });
    const r = await cli.run(['account', 'list'], { config: file });
    expectConfigError(r, file, 'colour');
    expect(existsSync(path.join(dir, 'db.sqlite3'))).toBe(false); // stopped before opening anything
  });

  it('an unknown nested key, named with its path', async () => {
    const { file } = await configIn({ database: { filenme: './db.sqlite3' } });
    expectConfigError(await cli.run(['account', 'list'], { config: file }), file, 'database.filenme');
  });

  it('a wrong type: listen.port as a string', async () => {
    const { file } = await configIn({ listen: { port: '8080' } });
    expectConfigError(await cli.run(['settings'], { config: file }), file, 'listen.port');
  });

  it('a wrong type: database as a string', async () => {
    const { file } = await configIn({ database: './db.sqlite3' });
    expectConfigError(await cli.run(['settings'], { config: file }), file, 'database');
  });

  it('a value out of range: log.level', async () => {
    const { file } = await configIn({ log: { level: 'loud' } });
    expectConfigError(await cli.run(['settings'], { config: file }), file, 'log.level');
  });

  it('invalid JSON', async () => {
    const { file } = await configIn('{"database": {"filename": "./db.sqlite3",}');
    expectConfigError(await cli.run(['account', 'list'], { config: file }), file);
  });

  it('a missing file named by --config', async () => {
    const file = path.join(cli.dir, 'no-such-dir', 'config.json');
    expectConfigError(await cli.run(['account', 'list'], { config: file }), file);
  });

  it('a directory named by --config', async () => {
    const { dir } = await configIn({});
    expectConfigError(await cli.run(['account', 'list'], { config: dir }), dir);
  });

  // Root reads any file: the run is made by a user without root's powers (unprivileged.ts).
  it.skipIf(unprivilegedSkip !== null)(
    `an unreadable file named by --config (${unprivilegedSkip ?? 'as an unprivileged user'})`,
    async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-unreadable-'));
      try {
        const file = path.join(dir, 'config.json');
        await writeFile(file, '{}');
        await own(dir);
        await chmod(file, 0o000);
        const r = await runUnprivileged(['--config', file, 'account', 'list'], dir);
        expectConfigError(r, file);
        expect(r.stderr).toContain('EACCES');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('applies to every command that reads the configuration (token commands too)', async () => {
    const { file } = await configIn({ nope: true });
    expectConfigError(await cli.run(['token', 'list'], { config: file }), file, 'nope');
    expectConfigError(await cli.run(['audit'], { config: file }), file, 'nope');
  });
});

describe.concurrent('where the configuration comes from', () => {
  it('honours ARCHIVE_CONFIG when --config is not given (a bad file there stops with exit 2)', async () => {
    const { file } = await configIn({ surprise: 1 });
    const r = await cli.run(['account', 'list'], { config: false, env: { ARCHIVE_CONFIG: file } });
    expectConfigError(r, file, 'surprise');
  });

  it.skipIf(IS_PG)(
    'uses the database of the ARCHIVE_CONFIG file, over ./config.json in the working directory',
    async () => {
      const { dir, file } = await configIn({ database: { filename: './via-env.sqlite3' } }, 'archive.json');
      // The working directory is the sandbox, whose own config.json names archive.sqlite3.
      // Only migrate creates a database (issue 10); the command then finds it through ARCHIVE_CONFIG.
      expect((await cli.run(['migrate'], { config: false, env: { ARCHIVE_CONFIG: file } })).code).toBe(0);
      const r = await cli.run(['account', 'create', 'envuser', '--role', 'user', '--json'], {
        config: false,
        env: { ARCHIVE_CONFIG: file },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(path.join(dir, 'via-env.sqlite3'))).toBe(true);
      const sandboxAccounts = await cli.json<{ username: string }[]>(['account', 'list']);
      expect(sandboxAccounts.map((a) => a.username)).not.toContain('envuser');
    },
  );

  it('prefers --config over ARCHIVE_CONFIG', async () => {
    const { file: bad } = await configIn({ surprise: 1 });
    const r = await cli.run(['settings', '--json'], { env: { ARCHIVE_CONFIG: bad } });
    expect(r.code, r.stderr).toBe(0);
  });

  it.skipIf(IS_PG)('reads ./config.json of the working directory when neither is given', async () => {
    const { dir } = await configIn({ database: { filename: './local.sqlite3' } });
    expect((await cli.run(['migrate'], { config: false, cwd: dir })).code).toBe(0); // only migrate creates it
    const r = await cli.run(['settings', '--json'], { config: false, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'local.sqlite3'))).toBe(true);
  });
});

describe.skipIf(IS_PG).concurrent('the SQLite database file', () => {
  it('resolves a relative database.filename against the config file directory, not the working directory', async () => {
    const { dir, file } = await configIn({ database: { filename: './sub/rel.sqlite3' }, dataDir: './data' });
    const elsewhere = path.join(cli.dir, 'elsewhere');
    await mkdir(elsewhere, { recursive: true });
    expect((await cli.run(['migrate'], { config: file, cwd: elsewhere })).code).toBe(0); // only migrate creates it
    const r = await cli.run(['account', 'list', '--json'], { config: file, cwd: elsewhere });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'sub', 'rel.sqlite3'))).toBe(true);
    expect(existsSync(path.join(elsewhere, 'sub'))).toBe(false);
  });

  it('resolves relative to the config file also when --config itself is relative to the working directory', async () => {
    const { dir } = await configIn({ database: { filename: 'rel2.sqlite3' } });
    const relative = { config: path.relative(cli.dir, path.join(dir, 'config.json')), cwd: cli.dir };
    expect((await cli.run(['migrate'], relative)).code).toBe(0); // only migrate creates it
    const r = await cli.run(['settings', '--json'], relative);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'rel2.sqlite3'))).toBe(true);
    expect(existsSync(path.join(cli.dir, 'rel2.sqlite3'))).toBe(false);
  });

  it('creates the database file with mode 0600', async () => {
    const { dir, file } = await configIn({ database: { filename: './fresh.sqlite3' } });
    expect((await cli.run(['migrate'], { config: file })).code).toBe(0); // only migrate creates it
    const r = await cli.run(['account', 'create', 'modeuser', '--role', 'user'], { config: file });
    expect(r.code, r.stderr).toBe(0);
    const db = path.join(dir, 'fresh.sqlite3');
    expect(statSync(db).mode & 0o777).toBe(0o600);
    for (const extra of ['-wal', '-shm']) {
      if (existsSync(db + extra)) expect(statSync(db + extra).mode & 0o077).toBe(0);
    }
  });

  it('defaults to ./data/archive.sqlite3 of the working directory without any configuration', async () => {
    n += 1;
    const empty = path.join(cli.dir, `case${n}`);
    await mkdir(empty, { recursive: true });
    expect((await cli.run(['migrate'], { config: false, cwd: empty })).code).toBe(0); // only migrate creates it
    const r = await cli.run(['settings', '--json'], { config: false, cwd: empty });
    expect(r.code, r.stderr).toBe(0);
    const db = path.join(empty, 'data', 'archive.sqlite3');
    expect(existsSync(db)).toBe(true);
    expect(statSync(db).mode & 0o777).toBe(0o600);
  });

  it('gave the sandbox database mode 0600 too', () => {
    expect(statSync(cli.dbFile as string).mode & 0o777).toBe(0o600);
  });
});
