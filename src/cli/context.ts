// What a command needs: configuration, database (schema checked) and clock, opened per command. Only `migrate`
// and `serve` create a database; elsewhere a missing one is refused, naming where it looked.
import { loadConfig, type Config } from '../config.js';
import { trustedPath } from '../config/file-trust.js';
import { configError } from '../errors.js';
import type { Db } from '../db/dialect.js';
import type { Ctx } from '../domain/context.js';
import { io } from './io.js';
import { note } from './text-output.js';

export type GlobalOptions = { config?: string };

/** The global options, read when an action runs (commander has parsed them by then). */
export type Globals = () => GlobalOptions;

/** Options that many commands share, as commander hands them to an action. */
export type JsonFlag = { json?: boolean };
export type AsFlag = { as?: string };

export function readConfig(globals: GlobalOptions): Config {
  return loadConfig(globals.config, io().env, io().cwd);
}

export function configSource(config: Pick<Config, 'file'>): string {
  return config.file ? `config file ${config.file}` : 'no config file: defaults';
}

function noDatabase(config: Config, what: string): Error {
  return configError(
    `${what} (${configSource(config)}). If this is the wrong configuration, give --config or ARCHIVE_CONFIG; ` +
      'to create a new, empty database there, run: archivectl migrate',
  );
}

/** Why the SQLite database or its -wal or -shm file cannot be trusted, by name (config/file-trust.ts). */
export function untrustedDatabase(config: Pick<Config, 'database'>): string | null {
  if (config.database.client !== 'sqlite3') return null;
  const named = trustedPath(config.database.filename, 'database file');
  // SQLite keeps the -wal and -shm files beside the file a link leads to.
  const file = named.path ?? config.database.filename;
  return (
    named.problem ??
    trustedPath(`${file}-wal`, 'database write-ahead log').problem ??
    trustedPath(`${file}-shm`, 'database shared-memory file').problem
  );
}

/** Stops the command (exit status 2) before a database another user could have written is opened. */
export function refuseUntrustedDatabase(config: Pick<Config, 'database'>): void {
  const problem = untrustedDatabase(config);
  if (problem) throw configError(problem);
}

/** `work` with the configured database open, then closed; first a warning if others can read it. */
export async function withConfiguredDatabase<T>(
  config: Config,
  opts: { create?: boolean },
  work: (db: Db) => Promise<T>,
): Promise<T> {
  // Loaded here, not with the module: `--help` and commands without a database never pay for them.
  const { closeDatabase, databaseFileExists, databaseFileWarning, databaseLocation, hasSchema, openDatabase } =
    await import('../db/connect.js');
  const where = databaseLocation(config.database);
  if (!opts.create && !databaseFileExists(config.database)) {
    throw noDatabase(config, `no database at ${where}`);
  }
  refuseUntrustedDatabase(config);
  const warning = databaseFileWarning(config);
  if (warning) note(`warning: ${warning}`);
  const db = await openDatabase(config.database);
  try {
    if (!opts.create && !(await hasSchema(db))) {
      throw noDatabase(config, `the database ${where} holds no archive (no migrations table)`);
    }
    return await work(db);
  } finally {
    await closeDatabase(db);
  }
}

export async function withDb<T>(globals: GlobalOptions, work: (ctx: Ctx) => Promise<T>): Promise<T> {
  const config = readConfig(globals);
  return withConfiguredDatabase(config, {}, async (db) => {
    // Only `migrate` and `serve` change the schema: a command on a database with pending
    // migrations, or one a later release migrated, refuses before it reads or writes anything.
    const { requireExpectedSchema } = await import('../db/schema-state.js');
    const { databaseLocation } = await import('../db/connect.js');
    await requireExpectedSchema(db, databaseLocation(config.database));
    return work({ db, clock: io().clock });
  });
}
