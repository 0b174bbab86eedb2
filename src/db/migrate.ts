// Runs the knex migrations in ./migrations (plain ESM files, shared by SQLite and PostgreSQL).
import { readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { isPg, pgClientConfig, sqliteFile, type Db } from './dialect.js';
import { importFile } from './import-file.cjs';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** The migrations: every .js file of migrations/, in the order of their names. */
function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.js'))
    .sort();
}

// The files are imported through import-file.cts, not by knex's directory loader: knex runs
// inside the program's bundle (src/load-bundle.ts), where import() has no loader. Each
// migration keeps its file name, as knex_migrations records it.
const migrationSource: Knex.MigrationSource<{ file: string }> = {
  getMigrations: () => Promise.resolve(migrationFiles().map((file) => ({ file }))),
  getMigrationName: (migration) => migration.file,
  getMigration: (migration) =>
    importFile(pathToFileURL(path.join(MIGRATIONS_DIR, migration.file)).href) as Promise<Knex.Migration>,
};
const options: Knex.MigratorConfig = { migrationSource };

/** Names of the migrations not applied yet. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const [, pending] = (await db.migrate.list(options)) as [unknown, { file: string }[]];
  return pending.map((m) => m.file);
}

// Any fixed number, the same in every process: the key of PostgreSQL's advisory lock.
const MIGRATION_LOCK_KEY = 7_204_116_883;

/**
 * Applies pending migrations; returns their names. Safe when several daemons (and the CLI)
 * start at the same moment: each process first looks (a read) and, only when something is
 * pending, takes a lock of its own kind — PostgreSQL's advisory lock, or on SQLite a lock file
 * beside the database — then migrates. knex's lock row is not relied upon: a process killed
 * while migrating leaves it set, and contending for it on SQLite can leave it set too; whoever
 * holds our lock is the only one migrating, so it clears that row first.
 */
export async function migrateLatest(db: Db): Promise<string[]> {
  // knex's listing creates its bookkeeping tables when they are missing; two processes doing
  // that at once can leave two lock rows, after which knex refuses to migrate at all. So knex
  // lists only under the lock; the look before it is a plain read.
  if (await allApplied(db)) return [];
  return withMigrationLock(db, async () => {
    // Whoever held the lock before may have applied everything meanwhile. Then nothing is
    // written: knex takes its lock row in a transaction that reads before it writes, which
    // SQLite refuses at once (no busy wait) when another process is writing.
    if (await allApplied(db)) return [];
    await db.migrate.list(options); // creates knex's tables when missing
    // Exactly one unlocked row, whatever a crash or an older race left behind.
    await db(LOCK_TABLE).delete();
    await db(LOCK_TABLE).insert({ is_locked: 0 });
    const [, applied] = (await db.migrate.latest(options)) as [number, string[]];
    return applied;
  });
}

const LOCK_TABLE = 'knex_migrations_lock';

/** Whether every migration is recorded as applied: a plain read (knex's own listing would create missing rows). */
async function allApplied(db: Db): Promise<boolean> {
  if (!(await db.schema.hasTable(LOCK_TABLE))) return false;
  const rows = await db('knex_migrations').select<{ name: string }[]>('name');
  const applied = new Set(rows.map((r) => r.name));
  return migrationFiles().every((f) => applied.has(f));
}

async function withMigrationLock<T>(db: Db, work: () => Promise<T>): Promise<T> {
  if (isPg(db)) {
    const { default: pg } = await import('pg');
    const lock = new pg.Client(pgClientConfig(db));
    await lock.connect();
    try {
      await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      return await work();
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
      await lock.end();
    }
  }
  let real = sqliteFile(db);
  try {
    real = realpathSync(real); // one lock per database file, whatever name reaches it
  } catch {
    // not created yet
  }
  return withLockFile(`${real}-migrate.lock`, work);
}

function holderAlive(file: string): boolean {
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return true; // being written right now
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file created exclusively (O_EXCL) holding our pid; a dead holder's file is taken over. */
async function withLockFile<T>(file: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (!holderAlive(file)) {
          rmSync(file, { force: true });
          continue;
        }
      } catch {
        continue; // released between our attempt and the read
      }
      if (Date.now() > deadline)
        throw new Error(`another process has been migrating for a minute (${file}); if none is, remove that file`, {
          cause: err,
        });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(file, { force: true });
  }
}
