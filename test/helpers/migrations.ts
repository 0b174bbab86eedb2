// The migrations of the repository, read here from migrations/ (not from src/), and the schema
// version they make: the newest one's name without `.js` (docs/upgrading.md).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './cli.js';

/** Migration file names as knex records them, oldest first. */
export function migrationFiles(): string[] {
  return readdirSync(path.join(REPO_ROOT, 'migrations'))
    .filter((f) => f.endsWith('.js'))
    .sort();
}

/** The schema version of a migration file name. */
export const schemaOf = (file: string): string => file.replace(/\.js$/, '');

/** The schema version this checkout's build expects. */
export function newestMigration(): string {
  return schemaOf(migrationFiles().at(-1) ?? '');
}
