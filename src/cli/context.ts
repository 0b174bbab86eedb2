// What a command needs to run: the configuration, an open database with its schema current,
// and the clock. Opened per command, closed when it ends.
import { loadConfig, type Config } from '../config.js';
import { clockFromEnv } from '../clock.js';
import { openDatabase } from '../db/connect.js';
import { migrateLatest } from '../db/migrate.js';
import type { Ctx } from '../domain/context.js';
import { note } from './output.js';

export interface GlobalOptions {
  config?: string;
}

export function readConfig(globals: GlobalOptions): Config {
  return loadConfig(globals.config);
}

export async function withDb<T>(globals: GlobalOptions, work: (ctx: Ctx, config: Config) => Promise<T>): Promise<T> {
  const config = readConfig(globals);
  const clock = clockFromEnv();
  const db = await openDatabase(config.database);
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
