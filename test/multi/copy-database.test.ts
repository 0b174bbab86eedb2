// Moving an installation from SQLite to PostgreSQL with `archivectl copy-database`: nothing is
// lost, and a token created on SQLite works against a daemon on PostgreSQL after the move.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  createAccounts,
  createSandbox,
  createToken,
  PG_URL,
  pgAdmin,
  type Sandbox,
  asAdministrator,
  IS_PG,
  useSandbox,
  withSandboxDb,
} from '../helpers/cli.js';
import { NOT_COPIED, TABLES } from '../../src/db/copy.js';
import { startDaemon } from '../helpers/daemon.js';

if (!PG_URL) console.warn('PostgreSQL tests skipped: set ARCHIVE_TEST_PG_URL to a postgres:// database to run them');

describe.skipIf(!PG_URL)('copy-database from SQLite to PostgreSQL', () => {
  let box: Sandbox;
  const schema = `copy_target_${process.pid}`;
  let targetUrl: string;

  beforeAll(async () => {
    box = await createSandbox({ backend: 'sqlite' });
    await pgAdmin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pgAdmin(`CREATE SCHEMA "${schema}"`);
    const url = new URL(PG_URL as string);
    url.searchParams.set('options', `-c search_path=${schema}`);
    targetUrl = url.toString();
  });
  afterAll(async () => {
    await pgAdmin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await box?.cleanup();
  });

  it('copies accounts, token hashes, settings, the audit log and the catalogue; tokens keep working', async () => {
    await createAccounts(box, { root: 'superuser', ed: 'editor', gone: 'user' });
    const t = await createToken(box, 'ed', 'moves along', 'root');
    const revoked = await createToken(box, 'ed', 'revoked before the move', 'root');
    await box.run(['token', 'revoke', revoked.id, '--as', 'root']);
    await box.run(['settings', 'set', 'public_api', 'on', ...(await asAdministrator(box))]);
    const catalog = path.join(box.dir, 'catalog.json');
    await writeFile(
      catalog,
      JSON.stringify({ actors: [{ name: 'Ada Lovelace' }, { name: 'Charles Babbage' }], keywords: ['Mathematics'] }),
    );
    expect((await box.run(['catalog', 'load', catalog])).code).toBe(0);
    const auditBefore = await box.json<unknown[]>(['audit']);

    const copied = await box.json<Record<string, number>>(['copy-database', targetUrl, '--yes']);
    expect(copied).toMatchObject({
      accounts: 3,
      tokens: 2,
      settings: 1,
      actors: 2,
      keywords: 1,
      audit_log: auditBefore.length,
    });

    // A second copy into the same (now full) database is refused and changes nothing.
    const again = await box.run(['copy-database', targetUrl, '--yes']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not empty/);

    // The daemon on PostgreSQL: same token, same settings, same catalogue, new rows get new ids.
    const daemon = await startDaemon(box, { env: { DATABASE_URL: targetUrl } });
    try {
      const auth = { Authorization: `Bearer ${t.token}` };
      const actors = await daemon.fetch('/api/actors', { headers: auth });
      expect(actors.status).toBe(200);
      expect(((await actors.json()) as { meta: { total: number } }).meta.total).toBe(2);
      expect((await daemon.fetch('/api/objects')).status).toBe(200); // public_api came along
      expect(
        (await daemon.fetch('/api/objects', { headers: { Authorization: `Bearer ${revoked.token}` } })).status,
      ).toBe(401);
      const created = await daemon.fetch('/api/actors', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: '{"name":"After the move"}',
      });
      expect(created.status).toBe(201);
      expect(((await created.json()) as { data: { id: number } }).data.id).toBe(3);
    } finally {
      await daemon.stop();
    }
    const auditAfter = await box.json<unknown[]>(['audit'], { env: { DATABASE_URL: targetUrl } });
    expect(auditAfter.slice(0, auditBefore.length)).toEqual(auditBefore);
  });

  it('refuses a target that is not a postgres:// URL', async () => {
    const r = await box.run(['copy-database', '/tmp/elsewhere.sqlite3', '--yes']);
    expect(r.code).toBe(2);
  });
});

describe('the tables copy-database knows', () => {
  const cli = useSandbox();

  it('are every table of the schema: each copied or left out for a stated reason', async () => {
    const names = await withSandboxDb(cli, async (db) => {
      type Names = { name: string }[];
      const rows = IS_PG
        ? (
            await db.raw<{ rows: Names }>(
              "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
            )
          ).rows
        : await db.raw<Names>("SELECT name FROM sqlite_master WHERE type = 'table'");
      return rows.map((r) => r.name).sort();
    });
    expect(names).toContain('actors');
    const copied = new Set<string>(TABLES);
    const unknown = names.filter((n) => !copied.has(n) && !NOT_COPIED.some((skip) => skip.table.test(n)));
    expect(unknown, 'add each to TABLES or NOT_COPIED in src/db/copy.ts').toEqual([]);
    // Every table copied exists: a name in TABLES is no typo.
    expect(TABLES.filter((t) => !names.includes(t))).toEqual([]);
  });
});
