// Runs the knex migrations in ./migrations (plain ESM files, shared by SQLite and PostgreSQL).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import type { Db } from './connect.js';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

type Migration = { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> };

// A source of our own instead of knex's directory loader: it imports the ESM files directly
// and lists them in name order, the same way on every platform.
const source: Knex.MigrationSource<string> = {
  async getMigrations() {
    return readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.js'))
      .sort();
  },
  getMigrationName(name) {
    return name;
  },
  async getMigration(name): Promise<Migration> {
    return (await import(pathToFileURL(path.join(MIGRATIONS_DIR, name)).href)) as Migration;
  },
};

const options: Knex.MigratorConfig = { migrationSource: source };

export async function pendingMigrations(db: Db): Promise<string[]> {
  const [, pending] = (await db.migrate.list(options)) as [unknown, string[]];
  return pending;
}

// Any fixed number, the same in every process: the key of PostgreSQL's advisory lock.
const MIGRATION_LOCK_KEY = 7_204_116_883;

/**
 * Applies pending migrations; returns their names. Safe when several daemons (and the CLI)
 * start at the same moment: on PostgreSQL an advisory lock, held on a connection of its own,
 * makes the others wait and then find nothing left to do; on SQLite, where knex's own lock row
 * may be taken by the other process, the attempt is repeated until it is free.
 */
export async function migrateLatest(db: Db): Promise<string[]> {
  if (db.client.config.client === 'pg') {
    const { default: pg } = await import('pg');
    // knex may have parsed the URL into an object; pg.Client takes either form.
    const conn = db.client.config.connection as string | Record<string, unknown>;
    const lock = new pg.Client(typeof conn === 'string' ? { connectionString: conn } : conn);
    await lock.connect();
    try {
      await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      const [, applied] = (await db.migrate.latest(options)) as [number, string[]];
      return applied;
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
      await lock.end();
    }
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const [, applied] = (await db.migrate.latest(options)) as [number, string[]];
      return applied;
    } catch (err) {
      const message = (err as Error).message ?? '';
      if (attempt >= 100 || !/already locked|already exists|SQLITE_BUSY/.test(message)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
