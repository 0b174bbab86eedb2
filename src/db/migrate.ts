// Runs the knex migrations of /migrations: plain ESM files shared by both dialects, loaded by knex.
// Only `migrate` and `serve` call this (docs/upgrading.md); other commands check the schema
// (./schema-state.ts) and refuse one that is not the expected one.
import path from 'node:path';
import type { Knex } from 'knex';
import { configError, usage } from '../errors.js';
import { announceAccessChange } from './access-announce.js';
import { readAccessGeneration } from './access-generation.js';
import { backupSqlite } from './backup.js';
import { isPg, isSqlite, sqliteFile, type Db } from './dialect.js';
import { knownMigrations, MIGRATIONS_DIR, schemaName } from '../release/versions.js';
import { newerSchemaMessage, schemaState, type SchemaState } from './schema-state.js';

const options: Knex.MigratorConfig = { directory: MIGRATIONS_DIR, loadExtensions: ['.js'] };
const LOCK_TABLE = 'knex_migrations_lock';
// Any fixed number, the same in every process: the key of PostgreSQL's advisory lock.
const MIGRATION_LOCK_KEY = 7_204_116_883;

/** Names of the migrations not applied yet: a plain read (knex's own listing creates its tables when missing). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const files = knownMigrations();
  if (!(await db.schema.hasTable('knex_migrations'))) return files;
  const applied = new Set((await db('knex_migrations').select<{ name: string }[]>('name')).map((r) => r.name));
  return files.filter((f) => !applied.has(f));
}

/** Applies pending migrations under the migration lock (several processes may start at once); their names. */
export async function migrateLatest(db: Db): Promise<string[]> {
  if ((await pendingMigrations(db)).length === 0) {
    await refuseNewerSchema(db);
    return [];
  }
  return underMigrationLock(db, async (trx) => {
    // Whoever held the lock before may have applied everything meanwhile.
    if ((await pendingMigrations(trx)).length === 0) return [];
    const [, applied] = (await trx.migrate.latest(options)) as [number, string[]];
    return applied;
  });
}

/** Brings the schema down or up to `target` (../release/versions.ts); the migrations run, each `-name` or `+name`. */
export async function migrateTo(db: Db, target: string): Promise<string[]> {
  const name = `${schemaName(target)}.js`;
  const known = knownMigrations();
  const at = known.indexOf(name);
  if (at < 0) throw usage(`no schema ${target} in this release; its schemas: ${known.map(schemaName).join(', ')}`);
  const before = await generationIfAny(db);
  const done = await underMigrationLock(db, async (trx) => {
    const done: string[] = [];
    for (;;) {
      const table = await trx.schema.hasTable('knex_migrations'); // a new database has none yet
      const rows = table ? await trx('knex_migrations').select<{ name: string }[]>('name') : [];
      const applied = new Set(rows.map((r) => r.name));
      const newest = [...applied].sort().at(-1);
      if (newest !== undefined && newest > name) {
        await trx.migrate.down({ ...options, name: newest });
        done.push(`-${schemaName(newest)}`);
        continue;
      }
      const next = known.slice(0, at + 1).find((m) => !applied.has(m));
      if (next === undefined) return done;
      await trx.migrate.up({ ...options, name: next });
      done.push(`+${schemaName(next)}`);
    }
  });
  // A down migration that revoked tokens moved the generation: running daemons hear of it as of
  // `token revoke`, not only at their next periodic check.
  if (before !== null && (await generationIfAny(db)) !== before) await announceAccessChange(db);
  return done;
}

async function generationIfAny(db: Db): Promise<string | null> {
  return (await db.schema.hasTable('auth_state')) ? readAccessGeneration(db) : null;
}

/** Throws (exit status 2) when a later release has migrated the database: nothing is run on it. */
export async function refuseNewerSchema(db: Db, where?: string): Promise<SchemaState | null> {
  if (!(await db.schema.hasTable('knex_migrations'))) return null;
  const state = await schemaState(db);
  if (state.unknown.length > 0) throw configError(newerSchemaMessage(state, where ?? 'here'));
  return state;
}

/**
 * `serve`'s migrations at start-up, as `migrate` runs them: a SQLite database with pending
 * migrations is backed up first (backupBeforeMigrating). `where` names the database in messages.
 */
export async function migrateAtStart(
  db: Db,
  where: string,
  now: Date,
): Promise<{ applied: string[]; backup: string | null }> {
  const before = await refuseNewerSchema(db, where);
  const backup =
    before?.database && before.pending.length > 0 && isSqlite(db)
      ? await backupBeforeMigrating(db, before.database, now)
      : null;
  return { applied: await migrateLatest(db), backup };
}

/** `serve --no-migrate`: the pending migrations, after refusing a later release's schema. */
export async function pendingAtStart(db: Db, where: string): Promise<string[]> {
  await refuseNewerSchema(db, where);
  return pendingMigrations(db);
}

/**
 * The consistent copy of a SQLite database taken before its schema changes, next to it, named
 * with the schema it holds and the instant (UTC) it was taken; mode 0600 (./backup.ts).
 */
export async function backupBeforeMigrating(db: Db, schema: string, now: Date): Promise<string> {
  if (!isSqlite(db)) throw usage('only a SQLite database is backed up by archivectl; on PostgreSQL, use pg_dump');
  const stamp = now.toISOString().replace(/[-:]|\.\d+/g, '');
  const target = `${path.resolve(sqliteFile(db))}.schema-${schema}.${stamp}.bak`;
  await backupSqlite(db, target, { force: false });
  return target;
}

/**
 * `work` in one transaction holding the database's own migration lock, so processes starting at once migrate
 * once (docs/ARCHITECTURE.md); knex's lock row is cleared, and a later release's schema refused, under it.
 */
async function underMigrationLock(db: Db, work: (trx: Knex.Transaction) => Promise<string[]>): Promise<string[]> {
  return db.transaction(async (trx) => {
    // PostgreSQL's lock is released when the transaction ends; it is waited for without a time
    // limit on the migrations' own handle (withoutStatementLimit, or a CLI command's).
    if (isPg(db)) await trx.raw('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
    else await lockSqlite(trx);
    await refuseNewerSchema(trx);
    if (await trx.schema.hasTable(LOCK_TABLE)) {
      await trx(LOCK_TABLE).delete(); // exactly one unlocked row, whatever an older build left behind
      await trx(LOCK_TABLE).insert({ is_locked: 0 });
    }
    const done = await work(trx);
    if (!isPg(db)) await trx.schema.dropTable(SQLITE_LOCK_TABLE);
    return done;
  });
}

/** How long a process waits on SQLite for another one's migrations, rather than database.busyTimeoutMs. */
const SQLITE_LOCK_WAIT_MS = 60_000;
/** A table that exists only inside the migrating transaction. */
const SQLITE_LOCK_TABLE = 'archivectl_migrating';

/** SQLite's one lock is its write lock: a table created here, dropped before commit, takes it. */
async function lockSqlite(trx: Knex.Transaction): Promise<void> {
  const [{ timeout }] = (await trx.raw('PRAGMA busy_timeout')) as [{ timeout: number }];
  await trx.raw(`PRAGMA busy_timeout = ${SQLITE_LOCK_WAIT_MS}`);
  try {
    await trx.schema.createTable(SQLITE_LOCK_TABLE, (t) => t.integer('unused'));
  } finally {
    await trx.raw(`PRAGMA busy_timeout = ${timeout}`);
  }
}
