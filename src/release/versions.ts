// What this release is: its version (package.json) and the database schema it expects, the name
// of its newest migration. Both are read from files without loading a module of the database:
// `--version` and every command's schema check (src/db/schema-state.ts) pay for a directory listing.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root, two levels above src/release/ and dist/bundle/ alike. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the knex migrations are: plain ESM files shared by both dialects (docs/upgrading.md). */
export const MIGRATIONS_DIR = path.join(ROOT, 'migrations');

let known: string[] | undefined;

/** Names of this release's migrations as knex records them (`<timestamp>_<what>.js`), oldest first. */
export function knownMigrations(): string[] {
  known ??= readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.js'))
    .sort();
  return known;
}

/** A schema version: the name of the newest migration applied, without `.js`. */
export const schemaName = (migration: string): string => migration.replace(/\.js$/, '');

/** The schema this release expects: its newest migration. */
export function expectedSchema(): string {
  return schemaName(knownMigrations().at(-1) ?? 'none');
}

export function programVersion(): string {
  return (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
