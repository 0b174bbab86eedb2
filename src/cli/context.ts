// What a command needs to run: the configuration, an open database with its schema current,
// and the clock. Opened per command, closed when it ends. Environment, working directory and
// clock are those of the run (io.ts), so an in-process run with another clock never touches
// the process's own.
import { loadConfig, type Config } from '../config.js';
import { databaseFileWarning, openDatabase } from '../db/connect.js';
import type { Db } from '../db/dialect.js';
import { migrateLatest } from '../db/migrate.js';
import type { Ctx } from '../domain/context.js';
import { io } from './io.js';
import { note } from './output.js';

export interface GlobalOptions {
  config?: string;
}

export function readConfig(globals: GlobalOptions): Config {
  const { env, cwd } = io();
  return loadConfig(globals.config, env, cwd);
}

/** Opens the configured database, first warning on stderr when its file is readable by others. */
export async function openConfiguredDatabase(config: Config): Promise<Db> {
  const warning = databaseFileWarning(config);
  if (warning) note(warning);
  return openDatabase(config.database);
}

export async function withDb<T>(globals: GlobalOptions, work: (ctx: Ctx, config: Config) => Promise<T>): Promise<T> {
  const config = readConfig(globals);
  const { clock } = io();
  const db = await openConfiguredDatabase(config);
  try {
    // A fresh installation needs no separate step: the CLI brings the schema up to date, as
    // `serve` does.
    const applied = await migrateLatest(db);
    if (applied.length > 0) note(`applied ${applied.length} database migration(s)`);
    return await work({ db, clock }, config);
  } finally {
    await db.destroy();
  }
}
