// Migrations only when asked (docs/upgrading.md): only `migrate` and `serve` change the schema;
// every other command refuses a database with pending migrations, and every command, migrate and
// serve included, refuses one a later release migrated. `migrate` backs up an existing SQLite
// database first; `migrate --to` runs the down migrations, each of which is checked here against
// the schema the migrations up to it make on a new database.
import { readFileSync } from 'node:fs';
import { copyFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccounts,
  createSandbox,
  createToken,
  IS_PG,
  REPO_ROOT,
  type Sandbox,
  useSandbox,
  withSandboxDb,
} from '../helpers/cli.js';
import { logEntries, spawnDaemon, startDaemon } from '../helpers/daemon.js';
import { migrationFiles, newestMigration, schemaOf } from '../helpers/migrations.js';

const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
const files = migrationFiles();
const newest = newestMigration();
const previous = schemaOf(files.at(-2) ?? '');

/** The schema of the sandbox's database, table by table, with its indexes and triggers. */
async function schemaDump(box: Sandbox): Promise<string[]> {
  return withSandboxDb(box, async (db) => (IS_PG ? pgSchema(db) : sqliteSchema(db)));
}

const BOOKKEEPING = ['knex_migrations', 'knex_migrations_lock'];

async function sqliteSchema(db: Knex): Promise<string[]> {
  const objects = await db.raw<{ type: string; name: string; tbl_name: string }[]>(
    "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
  );
  const out: string[] = [];
  for (const o of objects) {
    if (BOOKKEEPING.includes(o.tbl_name)) continue;
    if (o.type === 'table') {
      const columns = await db.raw<Record<string, unknown>[]>(`PRAGMA table_info("${o.name}")`);
      for (const c of columns)
        out.push(
          `column ${o.name}.${String(c.name)} ${String(c.type)} ${String(c.notnull)} ${String(c.dflt_value)} ${String(c.pk)}`,
        );
    } else if (o.type === 'index') {
      const columns = await db.raw<{ name: string }[]>(`PRAGMA index_info("${o.name}")`);
      out.push(`index ${o.tbl_name}.${o.name}(${columns.map((c) => c.name).join(',')})`);
    } else out.push(`${o.type} ${o.tbl_name}.${o.name}`);
  }
  return out.sort();
}

async function pgSchema(db: Knex): Promise<string[]> {
  const rows = async (sql: string) => (await db.raw<{ rows: Record<string, unknown>[] }>(sql)).rows;
  const out: string[] = [];
  const skip = (t: unknown) => BOOKKEEPING.includes(String(t));
  for (const c of await rows(
    `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public'`,
  ))
    if (!skip(c.table_name)) out.push(`column ${Object.values(c).map(String).join(' ')}`);
  for (const i of await rows(`SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = 'public'`))
    if (!skip(i.tablename)) out.push(`index ${String(i.indexdef)}`);
  for (const t of await rows(
    `SELECT event_object_table, trigger_name, event_manipulation, action_statement FROM information_schema.triggers`,
  ))
    out.push(`trigger ${Object.values(t).map(String).join(' ')}`);
  for (const f of await rows(
    `SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
     AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
  ))
    out.push(`function ${String(f.proname)}`); // an extension's own (pg_trgm, kept by catalog_scale's down) are not the schema's
  // search_statistics sets how many entries ANALYZE samples per column.
  for (const a of await rows(
    `SELECT c.relname, a.attname, a.attstattarget FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped AND a.attstattarget <> -1`,
  ))
    out.push(`statistics ${Object.values(a).map(String).join(' ')}`);
  return out.sort();
}

const appliedNames = (box: Sandbox) =>
  withSandboxDb(box, (db) => db('knex_migrations').orderBy('name').pluck<string[]>('name'));
const accountCount = (box: Sandbox) =>
  withSandboxDb(box, async (db) => Number(((await db('accounts').count({ n: '*' }).first()) as { n: unknown }).n));
const backups = async (box: Sandbox) => (await readdir(box.dir)).filter((f) => f.endsWith('.bak')).sort();

describe('every migration, down and up again', () => {
  const cli = useSandbox();
  let fresh: Sandbox;
  afterAll(async () => fresh?.cleanup());

  it('migrate --to steps down one migration at a time to the schema the migrations before it make, and migrate back up', async () => {
    // The schema after each migration, made upwards on a new database.
    fresh = await createSandbox({ migrate: false });
    const upwards: string[][] = [];
    for (const file of files) {
      const r = await fresh.run(['migrate', '--to', schemaOf(file)]);
      expect(r.code, r.stderr).toBe(0);
      upwards.push(await schemaDump(fresh));
    }
    const full = await schemaDump(cli);
    expect(upwards.at(-1)).toEqual(full);

    for (let i = files.length - 2; i >= 0; i--) {
      const r = await cli.run(['migrate', '--to', schemaOf(files[i] as string), '--no-backup']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`ran: -${schemaOf(files[i + 1] as string)}; schema ${schemaOf(files[i] as string)}`);
      expect(await schemaDump(cli), `down of ${files[i + 1]}`).toEqual(upwards[i]);
    }
    expect(await appliedNames(cli)).toEqual([files[0]]);
    // The first migration's down, through knex, leaves nothing but knex's own tables.
    await withSandboxDb(cli, async (db) => {
      await db.migrate.down({ directory: path.join(REPO_ROOT, 'migrations'), loadExtensions: ['.js'] });
    });
    expect(await schemaDump(cli)).toEqual([]);

    const up = await cli.run(['migrate', '--no-backup']);
    expect(up.code, up.stderr).toBe(0);
    expect(await schemaDump(cli)).toEqual(full);
    expect(await appliedNames(cli)).toEqual(files);
    expect(await backups(cli)).toEqual([]); // --no-backup
  });

  it('migrate --to refuses a schema this release does not have, changing nothing', async () => {
    const r = await cli.run(['migrate', '--to', '20990101000000_nothing']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `no schema 20990101000000_nothing in this release; its schemas: ${schemaOf(files[0] as string)}`,
    );
    expect(await appliedNames(cli)).toEqual(files);
  });
});

describe('a database with pending migrations', () => {
  const cli = useSandbox();
  let tokenId = '';

  beforeAll(async () => {
    await createAccounts(cli, { root: 'superuser', bob: 'user' });
    tokenId = (await createToken(cli, 'bob', 'laptop', 'root')).id;
  });

  it('is made by migrate --to, which first backs up a SQLite database and says how to roll back', async () => {
    const r = await cli.run(['migrate', '--to', previous]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`ran: -${newest}; schema ${previous}`);
    expect(r.stderr).toContain(`archivectl migrate --to ${newest}`);
    if (IS_PG) {
      expect(r.stderr).toMatch(/PostgreSQL: archivectl takes no backup; .* pg_dump -Fc first/);
      expect(await backups(cli)).toEqual([]);
      return;
    }
    const [backup] = await backups(cli);
    expect(backup).toMatch(new RegExp(`^archive\\.sqlite3\\.schema-${newest}\\.\\d{8}T\\d{6}Z\\.bak$`));
    expect(r.stderr).toContain(`backup of schema ${newest}: ${path.join(cli.dir, backup as string)} (mode 0600)`);
    expect(r.stderr).toContain(`cp -p ${path.join(cli.dir, backup as string)} ${cli.dbFile}`);
    expect((await stat(path.join(cli.dir, backup as string))).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['token list'],
    ['account list'],
    ['account create carol --role user --as root'],
    ['token create bob --name other --as root'],
    [`token revoke TOKEN --as root`],
    ['settings set public_api on --as root'],
    ['audit'],
    ['routes'],
  ])(
    'is refused by %s with exit status 2, naming both schemas and archivectl migrate, changing nothing',
    async (command) => {
      const before = await accountCount(cli);
      const r = await cli.run(command.replace('TOKEN', tokenId).split(' '));
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `has schema ${previous}; archivectl ${version} expects ${newest} (1 migration(s) pending)`,
      );
      expect(r.stderr).toContain('Nothing was changed. Upgrade it with: archivectl migrate');
      expect(r.stdout).toBe('');
      expect(await accountCount(cli)).toBe(before);
      expect(await appliedNames(cli)).toEqual(files.slice(0, -1));
    },
  );

  it('is reported by doctor with both schemas (exit status 1)', async () => {
    const r = await cli.run(['doctor', '--json']);
    expect(r.code).toBe(1);
    const findings = JSON.parse(r.stdout) as { check: string; status: string; detail: string }[];
    expect(findings.find((f) => f.check === 'migrations')).toEqual({
      check: 'migrations',
      status: 'fail',
      detail: `schema ${previous}; this release expects ${newest}: 1 pending (${files.at(-1)}): run archivectl migrate`,
    });
  });

  it('is refused by serve --no-migrate', async () => {
    const r = await cli.run(['serve', '--no-migrate', '--host', '127.0.0.1', '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the database needs migrations');
    expect(await appliedNames(cli)).toEqual(files.slice(0, -1));
  });

  it('is brought up to date by migrate, after a backup of the schema it holds; then commands run again', async () => {
    const before = await backups(cli);
    const r = await cli.run(['migrate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`applied: ${files.at(-1)}`);
    expect(await appliedNames(cli)).toEqual(files);
    const made = (await backups(cli)).filter((f) => !before.includes(f));
    if (IS_PG) expect(made).toEqual([]);
    else expect(made).toEqual([expect.stringMatching(new RegExp(`^archive\\.sqlite3\\.schema-${previous}\\.`))]);
    const list = await cli.json<{ id: string }[]>(['token', 'list']);
    expect(list.map((t) => t.id)).toEqual([tokenId]);
    const again = await cli.run(['migrate']);
    expect(again.stderr.trim()).toBe(`the database is up to date (schema ${newest})`);
    expect(await backups(cli)).toEqual([...before, ...made].sort()); // nothing to change: no backup
  });

  it.skipIf(IS_PG)(
    'SQLite: the backup migrate --to took restores the installation as it was (rollback by restore)',
    async () => {
      const taken = (await backups(cli)).find((f) => f.includes(newest)); // before migrate --to ran
      await createAccounts(cli, { later: 'user' });
      await copyFile(path.join(cli.dir, taken as string), cli.dbFile as string);
      expect(await appliedNames(cli)).toEqual(files);
      const accounts = await cli.json<{ username: string }[]>(['account', 'list']);
      expect(accounts.map((a) => a.username).sort()).toEqual(['bob', 'root']);
      expect((await cli.json<{ id: string }[]>(['token', 'list'])).map((t) => t.id)).toEqual([tokenId]);
    },
  );
});

describe('a database a later release migrated', () => {
  const cli = useSandbox();
  const later = '29990101000000_from_a_later_release';

  beforeAll(async () => {
    await createAccounts(cli, { root: 'superuser' });
    await withSandboxDb(cli, async (db) => {
      await db('knex_migrations').insert({ name: `${later}.js`, batch: 99, migration_time: new Date() });
    });
  });

  const message =
    `has schema ${later}, from a later release of archivectl; this is archivectl ${version}, ` +
    `which knows schemas up to ${newest} and does not run on a later one. Nothing was changed.`;

  it.each([
    ['token list'],
    ['account create carol --role user --as root'],
    ['migrate'],
    [`migrate --to ${previous}`],
    ['serve --host 127.0.0.1 --port 0'],
    ['serve --no-migrate --host 127.0.0.1 --port 0'],
  ])('is refused by %s with exit status 2 and one plain message, changing nothing', async (command) => {
    const r = await cli.run(command.split(' '));
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('restoring the backup taken before that upgrade (docs/upgrading.md, "Rolling back")');
    expect(r.stderr).not.toMatch(/corrupt|up to date/);
    expect(await appliedNames(cli)).toEqual([...files, `${later}.js`]);
    expect(await accountCount(cli)).toBe(1);
    expect(await backups(cli)).toEqual([]);
  });

  it('is reported by doctor, exit status 1', async () => {
    const r = await cli.run(['doctor']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^FAIL +migrations +the database .* has schema 29990101000000_from_a_later_release, from a later release/m,
    );
  });
});

describe('a daemon running while the schema is migrated under it', () => {
  const cli = useSandbox();

  it('goes on answering, every request 200, while migrate --to and migrate run', async () => {
    await createAccounts(cli, { root: 'superuser', bob: 'user' });
    const token = (await createToken(cli, 'bob', 'probe', 'root')).token;
    const daemon = await spawnDaemon(cli);
    try {
      const statuses: number[] = [];
      let migrating = true;
      const probe = (async () => {
        while (migrating || statuses.length < 5) {
          const r = await daemon.fetch('/api/token', { headers: { authorization: `Bearer ${token}` } });
          await r.arrayBuffer();
          statuses.push(r.status);
        }
      })();
      const down = await cli.run(['migrate', '--to', previous, '--no-backup'], { spawn: true });
      const up = await cli.run(['migrate', '--no-backup'], { spawn: true });
      migrating = false;
      await probe;
      expect(down.code, down.stderr).toBe(0);
      expect(up.code, up.stderr).toBe(0);
      expect(statuses.length).toBeGreaterThanOrEqual(5);
      expect(new Set(statuses)).toEqual(new Set([200]));
      expect(daemon.running()).toBe(true);
    } finally {
      expect((await daemon.stop()).code).toBe(0);
    }
  });
});

describe('serve on a database with pending migrations', () => {
  const cli = useSandbox();

  it('applies them at start-up, after the backup migrate would take (SQLite), and logs both', async () => {
    expect((await cli.run(['migrate', '--to', previous, '--no-backup'])).code).toBe(0);
    const daemon = await startDaemon(cli);
    try {
      const entries = logEntries(daemon);
      expect(entries.find((e) => e.msg === 'applied database migrations')?.migrations).toEqual([files.at(-1)]);
      const backedUp = entries.find((e) => e.msg === 'backed up the database before migrating it');
      if (IS_PG) expect(backedUp).toBeUndefined();
      else
        expect(backedUp?.backup).toMatch(new RegExp(`archive\\.sqlite3\\.schema-${previous}\\.\\d{8}T\\d{6}Z\\.bak$`));
      expect(await backups(cli)).toHaveLength(IS_PG ? 0 : 1);
      expect(await appliedNames(cli)).toEqual(files);
    } finally {
      expect((await daemon.stop()).code).toBe(0);
    }
  });
});
