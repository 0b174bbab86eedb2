// A configuration or SQLite database that another user could have written decides which
// database a command changes and what it finds there: a ./config.json planted in a shared
// working directory, a database file of mode 0666. Every command refuses such a file, as ssh
// refuses a key others may write, naming the file and the fix, with exit status 2: writable by
// its group or others, or owned by a user other than the one running it and root.
import { existsSync } from 'node:fs';
import { chmod, chown, copyFile, lchown, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import { createAccounts, createToken, IS_PG, lines, useSandbox, type CliResult } from '../helpers/cli.js';

const isRoot = process.getuid?.() === 0;
const NOT_ROOT = 'giving a file to another user (chown nobody) needs root';

const cli = useSandbox();
let tokenId = '';

beforeAll(async () => {
  await createAccounts(cli, { root: 'superuser', bob: 'user' });
  tokenId = (await createToken(cli, 'bob', 'kept', 'root')).id;
});

function expectRefused(r: CliResult, file: string, fix: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(lines(r.stderr)).toHaveLength(1);
  expect(r.stderr).toContain(file);
  expect(r.stderr).toMatch(fix);
}

/** A directory holding a copy of the sandbox's config.json (its database is the sandbox's, by absolute path). */
async function plantedConfig(name: string): Promise<{ dir: string; file: string }> {
  const dir = path.join(cli.dir, name);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'config.json');
  const database = cli.dbFile ? { filename: cli.dbFile } : { client: 'pg', url: cli.env.DATABASE_URL ?? '' };
  await writeFile(file, JSON.stringify({ database, dataDir: path.join(cli.dir, 'data') }), { mode: 0o600 });
  return { dir, file };
}

const stillActive = async () =>
  (await cli.json<{ id: string; status: string }[]>(['token', 'list'])).some((t) => t.id === tokenId);

describe('a config file others may write', () => {
  it.each(['0666', '0662', '0660', '0620'])(
    'is refused as ./config.json with mode %s by token list, migrate and token revoke, changing nothing',
    async (octal) => {
      const mode = parseInt(octal, 8);
      const { dir, file } = await plantedConfig(`writable-${mode.toString(8)}`);
      await chmod(file, mode);
      for (const args of [['token', 'list'], ['migrate'], ['token', 'revoke', tokenId, '--as', 'root']]) {
        const r = await cli.run(args, { config: false, cwd: dir });
        expectRefused(r, file, new RegExp(`mode ${octal}: .*chmod go-w ${file}$`, 'm'));
      }
      expect(await stillActive()).toBe(true);
    },
  );

  it('is refused by every other command too, serve included, whichever way it was named', async () => {
    const { dir, file } = await plantedConfig('every-command');
    await chmod(file, 0o666);
    const commands = [
      ['serve', '--host', '127.0.0.1', '--port', '0'],
      ['account', 'list'],
      ['account', 'create', 'mallory', '--role', 'superuser'],
      ['settings', 'set', 'public_access', 'on'],
      ['settings'],
      ['audit'],
      ['routes'],
      ['backup', path.join(dir, 'copy.sqlite3')],
      ['catalog', 'load', '-'],
      ['token', 'import-legacy', '-', '--as', 'root'],
    ];
    const input = '{}'; // for the commands that read stdin before the configuration
    for (const args of commands) {
      expectRefused(await cli.run(args, { config: false, cwd: dir, input }), file, /chmod go-w/);
      expectRefused(await cli.run(args, { config: file, input }), file, /chmod go-w/);
      expectRefused(await cli.run(args, { config: false, env: { ARCHIVE_CONFIG: file }, input }), file, /chmod go-w/);
    }
    expect(await cli.json(['settings'])).toEqual({ public_api: false, public_access: false, token_max_days: null });
    expect((await cli.json<{ username: string }[]>(['account', 'list'])).map((a) => a.username)).not.toContain(
      'mallory',
    );
  });

  it('is refused by the built binary, with exit status 2', async () => {
    const { dir, file } = await plantedConfig('binary');
    await chmod(file, 0o666);
    expectRefused(await cli.run(['token', 'list'], { config: false, cwd: dir, spawn: true }), file, /chmod go-w/);
  });

  it('is used once fixed as the message says (mode 0644 and 0600 are fine)', async () => {
    const { dir, file } = await plantedConfig('fixed');
    for (const mode of [0o644, 0o600]) {
      await chmod(file, mode);
      const r = await cli.run(['token', 'list', '--json'], { config: false, cwd: dir });
      expect(r.code, r.stderr).toBe(0);
    }
  });
});

describe.skipIf(!isRoot)(`a config file owned by another user (${isRoot ? 'chown nobody' : NOT_ROOT})`, () => {
  it('is refused, naming its owner and the fix, even with mode 0600', async () => {
    const { dir, file } = await plantedConfig('foreign');
    await chmod(file, 0o600);
    await chown(file, 65534, 65534);
    for (const args of [
      ['token', 'list'],
      ['serve', '--port', '0'],
      ['settings', 'set', 'public_api', 'on'],
    ]) {
      const r = await cli.run(args, { config: false, cwd: dir });
      expectRefused(r, file, /belongs to (nobody|uid 65534): only a file of root is used, .*chown root /);
    }
    expect(await cli.json(['settings'])).toEqual({ public_api: false, public_access: false, token_max_days: null });
  });

  it('is accepted when owned by root (the system-wide file of a package)', async () => {
    const { dir, file } = await plantedConfig('root-owned');
    await chown(file, 0, 0);
    expect((await cli.run(['token', 'list'], { config: false, cwd: dir })).code).toBe(0);
  });
});

describe.skipIf(IS_PG)('a SQLite database others may write', () => {
  it.each(['0666', '0660', '0646'])(
    'is refused with mode %s by token list, migrate, token revoke and serve, changing nothing',
    async (octal) => {
      const file = cli.dbFile as string;
      await chmod(file, parseInt(octal, 8));
      try {
        for (const args of [
          ['token', 'list'],
          ['migrate'],
          ['token', 'revoke', tokenId, '--as', 'root'],
          ['serve', '--port', '0'],
        ]) {
          const r = await cli.run(args);
          expectRefused(r, file, new RegExp(`database file ${file} has mode ${octal}: .*chmod go-w ${file}$`, 'm'));
        }
      } finally {
        await chmod(file, 0o600);
      }
      expect(await stillActive()).toBe(true);
    },
  );

  it('is refused when its -wal file is writable by others', async () => {
    const file = cli.dbFile as string;
    const wal = `${file}-wal`;
    const existed = existsSync(wal);
    if (!existed) await writeFile(wal, '');
    await chmod(wal, 0o666);
    try {
      expectRefused(await cli.run(['token', 'list']), wal, /chmod go-w/);
    } finally {
      if (existed) await chmod(wal, 0o600);
      else await rm(wal);
    }
  });

  it.skipIf(!isRoot)(`is refused when owned by another user (${isRoot ? 'chown nobody' : NOT_ROOT})`, async () => {
    const copy = path.join(cli.dir, 'foreign-db', 'archive.sqlite3');
    await mkdir(path.dirname(copy), { recursive: true });
    await copyFile(cli.dbFile as string, copy);
    await chown(copy, 65534, 65534);
    const config = path.join(cli.dir, 'foreign-db', 'config.json');
    await writeFile(config, JSON.stringify({ database: { filename: './archive.sqlite3' } }), { mode: 0o600 });
    expectRefused(await cli.run(['token', 'list'], { config }), copy, /belongs to .*chown root /);
  });
});

// What is judged is what is opened: the directory holding the file (another user who may write
// it can swap the name for a link to a file of theirs between a check and the open), and a
// symbolic link's target.
describe('the directory holding the config file or the database', () => {
  it('is refused when its group or others may write it (not sticky), for the config and the database', async () => {
    const { dir, file } = await plantedConfig('shared-config-dir');
    await chmod(dir, 0o777);
    for (const args of [['token', 'list'], ['token', 'revoke', tokenId, '--as', 'root'], ['migrate']]) {
      expectRefused(
        await cli.run(args, { config: false, cwd: dir }),
        file,
        new RegExp(`of mode 0777: .*chmod go-w ${dir} `),
      );
    }
    expectRefused(await cli.run(['token', 'list'], { config: file, spawn: true }), file, /chmod go-w/);
    expect(await stillActive()).toBe(true);
  });

  it.skipIf(IS_PG)('is refused for a SQLite database in a directory others may write', async () => {
    const shared = path.join(cli.dir, 'shared-db-dir');
    await mkdir(shared);
    const copy = path.join(shared, 'archive.sqlite3');
    await copyFile(cli.dbFile as string, copy);
    await chmod(copy, 0o600);
    await chmod(shared, 0o770);
    const { file: config } = await plantedConfig('shared-db-config');
    await writeFile(config, JSON.stringify({ database: { filename: copy } }), { mode: 0o600 });
    for (const args of [['token', 'list'], ['migrate'], ['serve', '--port', '0']]) {
      expectRefused(await cli.run(args, { config }), copy, new RegExp(`in ${shared}, of mode 0770: .*chmod go-w`));
    }
  });

  it('is accepted when sticky (as /tmp), or of mode 0755', async () => {
    const { dir } = await plantedConfig('sticky-dir');
    await chmod(dir, 0o1777);
    expect((await cli.run(['token', 'list', '--json'], { config: false, cwd: dir })).code).toBe(0);
    await chmod(dir, 0o755);
    expect((await cli.run(['token', 'list', '--json'], { config: false, cwd: dir })).code).toBe(0);
  });
});

describe.skipIf(!isRoot)(`a symbolic link to another user's file (${isRoot ? 'chown nobody' : NOT_ROOT})`, () => {
  it('is refused as the config file, and as the database, naming the target', async () => {
    const theirs = path.join(cli.dir, 'nobody-files');
    await mkdir(theirs);
    const theirConfig = path.join(theirs, 'config.json');
    await writeFile(theirConfig, JSON.stringify({ database: { filename: cli.dbFile ?? './x.sqlite3' } }), {
      mode: 0o644,
    });
    await chown(theirConfig, 65534, 65534);
    const { dir } = await plantedConfig('link-config');
    await rm(path.join(dir, 'config.json'));
    await symlink(theirConfig, path.join(dir, 'config.json'));
    expectRefused(
      await cli.run(['token', 'list'], { config: false, cwd: dir }),
      theirConfig,
      /belongs to (nobody|uid 65534)/,
    );

    if (!IS_PG) {
      const theirDb = path.join(theirs, 'archive.sqlite3');
      await copyFile(cli.dbFile as string, theirDb);
      await chown(theirDb, 65534, 65534);
      const mine = path.join(cli.dir, 'link-db');
      await mkdir(mine);
      await symlink(theirDb, path.join(mine, 'archive.sqlite3'));
      const config = path.join(mine, 'config.json');
      await writeFile(config, JSON.stringify({ database: { filename: './archive.sqlite3' } }), { mode: 0o600 });
      for (const args of [
        ['token', 'list'],
        ['token', 'revoke', tokenId, '--as', 'root'],
      ]) {
        expectRefused(await cli.run(args, { config }), theirDb, /belongs to (nobody|uid 65534)/);
      }
    }
    expect(await stillActive()).toBe(true);
  });

  it("is refused when the link itself is another user's, even to a file of ours (a sticky directory)", async () => {
    const sticky = path.join(cli.dir, 'sticky-links');
    await mkdir(sticky);
    await chmod(sticky, 0o1777);
    const { file: mine } = await plantedConfig('our-config');
    const link = path.join(sticky, 'config.json');
    await symlink(mine, link);
    await lchown(link, 65534, 65534);
    expectRefused(
      await cli.run(['token', 'list'], { config: false, cwd: sticky }),
      link,
      /symbolic link of (nobody|uid 65534)/,
    );
  });

  it('is followed when the link and its target are trusted', async () => {
    const { file: mine } = await plantedConfig('link-target');
    const dir = path.join(cli.dir, 'our-link');
    await mkdir(dir);
    await symlink(mine, path.join(dir, 'config.json'));
    const r = await cli.run(['token', 'list', '--json'], { config: false, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe.skipIf(IS_PG)('a SQLite file swapped between its check and its opening by SQLite', () => {
  it('is refused once SQLite has it open, reading and writing nothing', async () => {
    const dir = path.join(cli.dir, 'swapped');
    await mkdir(dir);
    const file = path.join(dir, 'archive.sqlite3');
    await copyFile(cli.dbFile as string, file);
    await chmod(file, 0o600);
    // Judged and pinned by openDatabase; SQLite opens the name at the first statement.
    const db = await openDatabase({ client: 'sqlite3', filename: file, busyTimeoutMs: 1000 });
    const planted = path.join(dir, 'planted');
    await writeFile(planted, 'not the judged file', { mode: 0o600 });
    await rename(planted, file);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const err = await db('accounts')
        .select('username')
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(String(err)).toMatch(new RegExp(`the database file ${file} was replaced while it was opened`));
    } finally {
      process.off('warning', onWarning);
      await db.destroy();
    }
    expect(await readFile(file, 'utf8')).toBe('not the judged file');
    expect(warnings).toEqual([]); // no stack trace printed beside the refusal
  });
});
