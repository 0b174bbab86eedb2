// Whether the database's schema is the one this release expects: one read of knex_migrations,
// compared with the names of the release's migration files (../release/versions.ts). No migration module is
// loaded, so every command pays for this check, not for migrating (docs/upgrading.md).
import { configError } from '../errors.js';
import type { Db } from './dialect.js';
import { expectedSchema, knownMigrations, programVersion, schemaName } from '../release/versions.js';

export interface SchemaState {
  /** The database's schema: the newest migration applied to it, or null when none is. */
  database: string | null;
  /** The schema this release expects. */
  expected: string;
  /** This release's migrations not applied yet, oldest first. */
  pending: string[];
  /** Migrations applied that this release does not know: a later release migrated the database. */
  unknown: string[];
}

/** The state of a database whose migrations table exists (connect.ts hasSchema). */
export async function schemaState(db: Db): Promise<SchemaState> {
  const applied = (await db('knex_migrations').select<{ name: string }[]>('name')).map((r) => r.name).sort();
  const known = new Set(knownMigrations());
  const done = new Set(applied);
  return {
    database: applied.length > 0 ? schemaName(applied[applied.length - 1] as string) : null,
    expected: expectedSchema(),
    pending: knownMigrations().filter((m) => !done.has(m)),
    unknown: applied.filter((m) => !known.has(m)),
  };
}

/** The one message for a database migrated by a later release; `where` names the database. */
export function newerSchemaMessage(state: SchemaState, where: string): string {
  return (
    `the database ${where} has schema ${state.database}, from a later release of archivectl; ` +
    `this is archivectl ${programVersion()}, which knows schemas up to ${state.expected} and does not ` +
    'run on a later one. Nothing was changed. Run the release that migrated it, or roll back to ' +
    'this one by restoring the backup taken before that upgrade (docs/upgrading.md, "Rolling back")'
  );
}

/** The message for a database this release has migrations for. */
export function pendingMessage(state: SchemaState, where: string): string {
  return (
    `the database ${where} has schema ${state.database ?? 'none'}; archivectl ${programVersion()} ` +
    `expects ${state.expected} (${state.pending.length} migration(s) pending). Nothing was changed. ` +
    'Upgrade it with: archivectl migrate (docs/upgrading.md)'
  );
}

/** Throws (exit status 2) unless the schema is the expected one: every command but migrate and serve. */
export async function requireExpectedSchema(db: Db, where: string): Promise<void> {
  const state = await schemaState(db);
  if (state.unknown.length > 0) throw configError(newerSchemaMessage(state, where));
  if (state.pending.length > 0) throw configError(pendingMessage(state, where));
}
