// The upgrade from each earlier release, replayed: an installation made by that release's own
// binary (test/fixtures/upgrade/<version>/, made by make-fixture.mjs there) is upgraded with the
// current build as docs/upgrading.md says (migrate, doctor, serve). Nothing may be lost: every
// table reads as before, doctor is clean, and every token authenticates or is refused as it was.
// The SQLite fixture runs always; the PostgreSQL dump in a PostgreSQL run (ARCHIVE_TEST_PG_URL).
//
// The token values are those of the fixtures' manifests, which open nothing else; they are
// compared by status only, so none reaches a test's output.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, copyFile } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, IS_PG, REPO_ROOT, type Sandbox, type TokenJson, withSandboxDb } from '../helpers/cli.js';
import { spawnDaemon } from '../helpers/daemon.js';
import { newestMigration } from '../helpers/migrations.js';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'upgrade');
const versions = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

interface FixtureToken {
  id: string;
  value: string;
  account: string;
  kind: string;
  /** The account's role, or how the token is refused: revoked, blocked, expired (a handoff token's 12 hours over). */
  expect: string;
}
interface Manifest {
  version: string;
  schema: string;
  tokens: Record<string, FixtureToken>;
}

/** Tables whose rows change by themselves: knex's bookkeeping, the daemons' heartbeats. */
const MOVING = new Set(['knex_migrations', 'knex_migrations_lock', 'daemons']);

/** Rows in a fixed order: by their JSON text. */
const sortedRows = (rows: unknown[]): unknown[] =>
  rows
    .map((r) => [JSON.stringify(r), r] as const)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, r]) => r);

/** Every row of every table, each table in a fixed order. */
async function contents(db: Knex, pg: boolean): Promise<Record<string, unknown[]>> {
  const tables = pg
    ? (
        await db.raw<{ rows: { name: string }[] }>(
          `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`,
        )
      ).rows
    : await db.raw<{ name: string }[]>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
      );
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables.sort((a, b) => a.name.localeCompare(b.name))) {
    if (MOVING.has(name)) continue;
    out[name] = sortedRows((await db(name).select('*')) as unknown[]);
  }
  return out;
}

/**
 * The contents after an upgrade as the release before held them: what later migrations added is
 * left out when it holds nothing yet (a new column still null everywhere, a new table still
 * empty), so anything lost, changed or filled in differs from `before`.
 */
function asBefore(before: Record<string, unknown[]>, after: Record<string, unknown[]>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [table, rows] of Object.entries(after)) {
    if (!(table in before)) {
      if (rows.length > 0) out[table] = rows;
      continue;
    }
    const known = new Set((before[table] ?? []).flatMap((r) => Object.keys(r as object)));
    out[table] = sortedRows(
      rows.map((r) => Object.fromEntries(Object.entries(r as object).filter(([k, v]) => known.has(k) || v !== null))),
    );
  }
  return out;
}

/** Loads a pg_dump of the fixture into the sandbox's (new, empty) PostgreSQL database. */
async function restoreDump(box: Sandbox, file: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: box.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(readFileSync(file, 'utf8'));
  } finally {
    await client.end();
  }
}

describe.each(versions)('an installation of release %s, upgraded by this build', (version) => {
  const dir = path.join(FIXTURES, version);
  const backend = IS_PG ? 'pg' : 'sqlite';
  const manifestFile = path.join(dir, `${backend}.json`);
  const present = existsSync(manifestFile);
  const manifest = present ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest) : null;
  let box: Sandbox;
  let before: Record<string, unknown[]>;

  beforeAll(async () => {
    if (!manifest) return;
    box = await createSandbox({ migrate: false });
    if (IS_PG) await restoreDump(box, path.join(dir, 'archive.pg.sql'));
    else {
      await copyFile(path.join(dir, 'archive.sqlite3'), box.dbFile as string);
      await chmod(box.dbFile as string, 0o600); // as the release's own backup made it
    }
    before = await withSandboxDb(box, (db) => contents(db, IS_PG));
  });
  afterAll(async () => box?.cleanup());

  it.skipIf(!present)(`holds what the fixture says (${backend} fixture present)`, async () => {
    expect(manifest?.version).toBe(version);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['accounts', 'tokens', 'audit_log', 'settings']));
    for (const table of [
      'accounts',
      'tokens',
      'legacy_imports',
      'audit_log',
      'actors',
      'places',
      'keywords',
      'objects',
    ])
      expect(before[table]?.length, table).toBeGreaterThan(0);
    expect(before.sip_submissions).toHaveLength(2);
  });

  it.skipIf(!present)('migrate upgrades it to this release; every row reads as before; doctor is clean', async () => {
    const migrated = await box.run(['migrate'], { spawn: true });
    expect(migrated.code, migrated.stderr).toBe(0);
    if (manifest?.schema === newestMigration())
      expect(migrated.stderr.trim()).toBe(`the database is up to date (schema ${newestMigration()})`);
    else expect(migrated.stderr).toContain('applied: ');
    expect(asBefore(before, await withSandboxDb(box, (db) => contents(db, IS_PG)))).toEqual(before);

    const doctor = await box.run(['doctor', '--json'], { spawn: true });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    const findings = JSON.parse(doctor.stdout) as { check: string; status: string; detail: string }[];
    expect(findings.filter((f) => f.status === 'fail')).toEqual([]);
    expect(findings.find((f) => f.check === 'migrations')?.detail).toBe(`all applied: schema ${newestMigration()}`);
  });

  it.skipIf(!present)('every token authenticates, or is refused, as it was; audit and settings unchanged', async () => {
    const tokens = Object.entries(manifest?.tokens ?? {});
    const listed = await box.json<TokenJson[]>(['token', 'list', '--all']);
    const daemon = await spawnDaemon(box);
    try {
      for (const [key, t] of tokens) {
        const row = listed.find((l) => l.id === t.id);
        expect(row, key).toMatchObject({ account: t.account, kind: t.kind });
        const r = await daemon.fetch('/api/token', { headers: { authorization: `Bearer ${t.value}` } });
        const body = (await r.json()) as { data?: { id: string; role: string } };
        // A handoff token lives 12 hours: refused once they are over, as the release refused it.
        const stored = (before.tokens as { selector: string; expires_at: string | null }[]).find(
          (r) => r.selector === t.id,
        );
        const expired = t.expect === 'expired' && Date.parse(stored?.expires_at ?? '') <= Date.now();
        if (t.expect === 'revoked' || expired) expect(r.status, key).toBe(401);
        else if (t.expect === 'blocked') expect(r.status, key).toBe(403);
        else {
          expect(r.status, key).toBe(200);
          expect(body.data, key).toMatchObject({ id: t.id, role: t.expect === 'expired' ? 'user' : t.expect });
        }
      }
    } finally {
      expect((await daemon.stop()).code).toBe(0);
    }
    const after = asBefore(before, await withSandboxDb(box, (db) => contents(db, IS_PG)));
    for (const table of [
      'audit_log',
      'settings',
      'accounts',
      'actors',
      'places',
      'keywords',
      'objects',
      'sip_submissions',
    ])
      expect(after[table], table).toEqual(before[table]);
  });
});
