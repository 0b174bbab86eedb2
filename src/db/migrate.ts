// Runs the knex migrations of /migrations: plain ESM files shared by both dialects, loaded by knex.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { isPg, type Db } from './dialect.js';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
const options: Knex.MigratorConfig = { directory: MIGRATIONS_DIR, loadExtensions: ['.js'] };
const LOCK_TABLE = 'knex_migrations_lock';
// Any fixed number, the same in every process: the key of PostgreSQL's advisory lock.
const MIGRATION_LOCK_KEY = 7_204_116_883;

/** Names of the migrations not applied yet: a plain read (knex's own listing creates its tables when missing). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.js'))
    .sort();
  if (!(await db.schema.hasTable('knex_migrations'))) return files;
  const applied = new Set((await db('knex_migrations').select<{ name: string }[]>('name')).map((r) => r.name));
  return files.filter((f) => !applied.has(f));
}

/**
 * Applies pending migrations; returns their names. Safe when several processes start at once on a
 * new database (docs/ARCHITECTURE.md): only when something is pending, each migrates in one
 * transaction that first takes the database's own lock. Whoever holds it is the only one
 * migrating, so knex's lock row, left set only by an older build or by hand, is cleared.
 */
export async function migrateLatest(db: Db): Promise<string[]> {
  if ((await pendingMigrations(db)).length === 0) return [];
  return db.transaction(async (trx) => {
    // PostgreSQL's lock is released when the transaction ends; it is waited for without a time
    // limit on the migrations' own handle (withoutStatementLimit, or a CLI command's).
    if (isPg(db)) await trx.raw('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
    else await lockSqlite(trx);
    let applied: string[] = [];
    // Whoever held the lock before may have applied everything meanwhile.
    if ((await pendingMigrations(trx)).length > 0) {
      if (await trx.schema.hasTable(LOCK_TABLE)) {
        await trx(LOCK_TABLE).delete(); // exactly one unlocked row, whatever an older build left behind
        await trx(LOCK_TABLE).insert({ is_locked: 0 });
      }
      [, applied] = (await trx.migrate.latest(options)) as [number, string[]];
    }
    if (!isPg(db)) await trx.schema.dropTable(SQLITE_LOCK_TABLE);
    return applied;
  });
}

/** How long a process waits on SQLite for another one's migrations, rather than database.busyTimeoutMs. */
const SQLITE_LOCK_WAIT_MS = 60_000;
/** A table that exists only inside the migrating transaction. */
const SQLITE_LOCK_TABLE = 'archivectl_migrating';

/**
 * SQLite's one lock is its write lock, waited for only by a first statement that writes (see
 * ./write-transaction.ts): whatever the schema holds yet, this creates a table the migrating
 * transaction drops before it commits, on a busy timeout raised for as long as migrations take.
 */
async function lockSqlite(trx: Knex.Transaction): Promise<void> {
  const [{ timeout }] = (await trx.raw('PRAGMA busy_timeout')) as [{ timeout: number }];
  await trx.raw(`PRAGMA busy_timeout = ${SQLITE_LOCK_WAIT_MS}`);
  try {
    await trx.schema.createTable(SQLITE_LOCK_TABLE, (t) => t.integer('unused'));
  } finally {
    await trx.raw(`PRAGMA busy_timeout = ${timeout}`);
  }
}
