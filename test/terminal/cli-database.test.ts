// Issue 10, finding 4: run from the wrong directory (or by `sudo -u`, which drops
// ARCHIVE_CONFIG) the CLI silently created an empty database. Now only `migrate` and `serve`
// create one; every other command refuses with exit status 2, naming the configuration and the
// database it looked for. And `doctor` checks an installation end to end.
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configPath } from '../../src/config.js';
import { createAccounts, IS_PG, lines, pgAdmin, STACK_FRAME_RE, useSandbox } from '../helpers/cli.js';
import { newestMigration } from '../helpers/migrations.js';
import { own, runUnprivileged, unprivilegedSkip } from '../cli/unprivileged.js';

describe('a command on a database that is not there', () => {
  const cli = useSandbox({ migrate: false });

  it.skipIf(IS_PG)(
    'refuses with exit status 2, naming the config file and the database, and creates nothing',
    async () => {
      for (const args of [['account', 'list'], ['token', 'list'], ['settings'], ['audit'], ['backup', 'x.db']]) {
        const r = await cli.run(args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr).toContain(`no database at ${cli.dbFile}`);
        expect(r.stderr).toContain(`config file ${cli.configFile}`);
        expect(r.stderr).toContain('archivectl migrate');
        expect(r.stdout).toBe('');
      }
      expect(existsSync(cli.dbFile as string)).toBe(false);
    },
  );

  it.skipIf(IS_PG)('says "no config file: defaults" when it found none', async () => {
    const empty = path.join(cli.dir, 'elsewhere');
    await mkdir(empty, { recursive: true });
    const r = await cli.run(['account', 'list'], { config: false, cwd: empty });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no database at ${path.join(empty, 'data', 'archive.sqlite3')}`);
    expect(r.stderr).toContain('no config file: defaults');
    expect(existsSync(path.join(empty, 'data'))).toBe(false);
  });

  it.runIf(IS_PG)('refuses an empty PostgreSQL database (no migrations table) with exit status 2', async () => {
    const r = await cli.run(['account', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds no archive \(no migrations table\)/);
    expect(r.stderr).toContain('archivectl migrate');
  });

  it('doctor reports the missing database and exits 1, creating nothing', async () => {
    const r = await cli.run(['doctor']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL\s+(database|migrations)\s/);
    if (cli.dbFile) expect(existsSync(cli.dbFile)).toBe(false);
  });

  it('works once migrate has created it', async () => {
    expect((await cli.run(['migrate'])).code).toBe(0);
    const r = await cli.run(['account', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});

describe('where the configuration is found', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('falls back to the system-wide file when there is no --config, ARCHIVE_CONFIG or ./config.json', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-config-'));
    const system = path.join(dir, 'etc-config.json');
    const cwd = path.join(dir, 'work');
    await mkdir(cwd);
    expect(configPath(undefined, {}, cwd, system)).toBeNull();
    await writeFile(system, '{}');
    expect(configPath(undefined, {}, cwd, system)).toBe(system);
    await writeFile(path.join(cwd, 'config.json'), '{}');
    expect(configPath(undefined, {}, cwd, system)).toBe(path.join(cwd, 'config.json'));
    expect(configPath(undefined, { ARCHIVE_CONFIG: 'env.json' }, cwd, system)).toBe(path.join(cwd, 'env.json'));
    expect(configPath('flag.json', { ARCHIVE_CONFIG: 'env.json' }, cwd, system)).toBe(path.join(cwd, 'flag.json'));
  });

  it('looks in /etc/archivectl/config.json by default', () => {
    // This machine has no such file (tests never write into /etc): the default path is asked
    // for, and its absence means the defaults.
    expect(existsSync('/etc/archivectl/config.json')).toBe(false);
    expect(configPath(undefined, {}, os.tmpdir())).toBeNull();
  });
});

describe('doctor on a working installation', () => {
  const cli = useSandbox();

  it('passes every check, with a warning for the dataDir not created yet', async () => {
    await createAccounts(cli, { root: 'superuser' });
    const r = await cli.run(['doctor', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const findings = JSON.parse(r.stdout) as { check: string; status: string; detail: string }[];
    const by = Object.fromEntries(findings.map((f) => [f.check, f]));
    expect(by.config).toEqual({ check: 'config', status: 'ok', detail: `config file ${cli.configFile}` });
    expect(by.database?.status).toBe('ok');
    expect(by.migrations).toEqual({
      check: 'migrations',
      status: 'ok',
      detail: `all applied: schema ${newestMigration()}`,
    });
    expect(by.dataDir?.status).toMatch(/ok|warn/);
    if (IS_PG) expect(by.daemons?.status).toBe('warn');
    else expect(by['database mode']?.status).toBe('ok');
    expect(findings.every((f) => f.status !== 'fail')).toBe(true);
  });

  it('fails on a config file others may write, saying how to fix it, and looks no further', async () => {
    await chmod(cli.configFile, 0o666);
    try {
      const r = await cli.run(['doctor']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/FAIL\s+config\s+config error: the config file .* has mode 0666: .*chmod go-w /);
      expect(r.stdout).not.toMatch(/database/);
      expect(r.stderr).toMatch(/1 check\(s\) failed/);
    } finally {
      await chmod(cli.configFile, 0o600);
    }
  });

  it.skipIf(IS_PG)('fails on a database readable by others, or one others may write (not opened)', async () => {
    const db = cli.dbFile as string;
    try {
      await chmod(db, 0o644);
      const readable = await cli.run(['doctor']);
      expect(readable.code).toBe(1);
      expect(readable.stdout).toMatch(/FAIL\s+database mode\s+.*chmod 600/);
      await chmod(db, 0o664);
      const writable = await cli.run(['doctor']);
      expect(writable.code).toBe(1);
      expect(writable.stdout).toMatch(/FAIL\s+database\s+the database file .* has mode 0664: .*chmod go-w /);
      expect(writable.stdout).not.toMatch(/migrations/); // not opened
    } finally {
      await chmod(db, 0o600);
    }
  });

  // Root writes anywhere: the check is run by a user without root's powers (unprivileged.ts).
  it.skipIf(unprivilegedSkip !== null)(
    `fails on a dataDir this user cannot write (${unprivilegedSkip ?? 'as an unprivileged user'})`,
    async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-unprivileged-'));
      try {
        await writeFile(
          path.join(dir, 'config.json'),
          JSON.stringify({ database: { filename: './archive.sqlite3' }, dataDir: './data' }),
          { mode: 0o600 },
        );
        await mkdir(path.join(dir, 'data'));
        await own(dir);
        const migrated = await runUnprivileged(['--config', 'config.json', 'migrate'], dir);
        expect(migrated.code, migrated.stderr).toBe(0);
        await chmod(path.join(dir, 'data'), 0o500);
        const r = await runUnprivileged(['--config', 'config.json', 'doctor', '--json'], dir);
        expect(r.code, r.stderr).toBe(1);
        const findings = JSON.parse(r.stdout) as { check: string; status: string; detail: string }[];
        expect(findings.find((f) => f.check === 'dataDir')).toMatchObject({ status: 'fail' });
        expect(findings.find((f) => f.check === 'dataDir')?.detail).toMatch(/not writable by this user \(EACCES\)/);
        expect(findings.filter((f) => f.status === 'fail')).toHaveLength(1); // everything else is in order
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('reports a config file that is not valid JSON as a failed check', async () => {
    const bad = path.join(cli.dir, 'bad.json');
    await writeFile(bad, '{');
    const r = await cli.run(['doctor'], { config: bad });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL\s+config\s+config error: .*bad\.json is not valid JSON/);
  });

  it.runIf(IS_PG)('counts the live daemons from their heartbeats', async () => {
    const url = new URL(cli.env.DATABASE_URL ?? '');
    await pgAdmin(
      `INSERT INTO daemons (id, host, pid, acked_generation, seen_ms) VALUES
       ('live', 'h', 1, 0, (extract(epoch from clock_timestamp()) * 1000)::bigint + 60000),
       ('gone', 'h', 2, 0, 0)`,
      url.pathname.slice(1),
    );
    const findings = await cli.json<{ check: string; status: string; detail: string }[]>(['doctor']);
    expect(findings.find((f) => f.check === 'daemons')).toMatchObject({ status: 'ok' });
    expect(findings.find((f) => f.check === 'daemons')?.detail).toMatch(/^1 daemon\(s\) alive.*1 stopped/);
  });
});

// Issue 10, finding 6: a PostgreSQL connection error printed a stack trace on stdout, where it
// lands in `$(…)` captures and JSON pipes. The real binary, so that stdout is a real pipe.
describe('a PostgreSQL database that cannot be reached', () => {
  const cli = useSandbox({ migrate: false });

  it('is one line on stderr, nothing on stdout, no stack trace, exit status 1', async () => {
    for (const url of ['postgres://postgres@127.0.0.1:1/archive', 'postgres://postgres@127.0.0.1:5432/no_such_db_x']) {
      const r = await cli.run(['account', 'list', '--json'], { spawn: true, env: { DATABASE_URL: url } });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(STACK_FRAME_RE);
    }
  });
});
