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

/** Applies pending migrations; returns their names. */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest(options)) as [number, string[]];
  return applied;
}
