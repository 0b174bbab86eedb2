import path from 'node:path';
import { usage } from '../../errors.js';
import { withConfiguredDatabase, readConfig, type Globals, type JsonFlag } from '../context.js';
import { io } from '../io.js';
import { note, printJson } from '../text-output.js';

export async function run(globals: Globals, file: string, opts: { force?: boolean } & JsonFlag): Promise<void> {
  const config = readConfig(globals());
  if (config.database.client !== 'sqlite3') {
    throw usage('backup copies SQLite databases; on PostgreSQL use pg_dump (pg_dump -Fc -f archive.dump …)');
  }
  const target = path.resolve(io().cwd, file);
  if (target === path.resolve(config.database.filename)) throw usage('the backup file is the database itself');
  const { backupSqlite } = await import('../../db/backup.js');
  const bytes = await withConfiguredDatabase(config, {}, (db) =>
    backupSqlite(db, target, { force: Boolean(opts.force) }),
  );
  if (opts.json) printJson({ file: target, bytes });
  else note(`wrote a copy of ${config.database.filename} to ${target} (${bytes} bytes)`);
}
