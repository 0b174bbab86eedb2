import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { invalid, usage } from '../../errors.js';
import { withConfiguredDatabase, readConfig, type Globals, type JsonFlag } from '../context.js';
import { io } from '../io.js';
import { progressLine } from '../progress.js';
import { humanBytes, note, printJson } from '../text-output.js';

const sizeOf = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** A folder the copy can go into, or a plain refusal naming it (never a raw ENOENT). */
function checkFolder(target: string): void {
  const folder = path.dirname(target);
  if (!existsSync(folder))
    throw invalid(`cannot write ${target}: the folder ${folder} does not exist (create it first)`);
  if (!statSync(folder).isDirectory()) throw invalid(`cannot write ${target}: ${folder} is not a folder`);
}

export async function run(globals: Globals, file: string, opts: { force?: boolean } & JsonFlag): Promise<void> {
  const config = readConfig(globals());
  if (config.database.client !== 'sqlite3') {
    throw usage('backup copies SQLite databases; on PostgreSQL use pg_dump (pg_dump -Fc -f archive.dump …)');
  }
  const target = path.resolve(io().cwd, file);
  if (target === path.resolve(config.database.filename)) throw usage('the backup file is the database itself');
  checkFolder(target);
  const { backupSqlite } = await import('../../db/backup.js');
  // VACUUM INTO is one statement: its progress is the copy's size against the database's (with
  // its write-ahead log), read ten times a second. The copy may end smaller (free pages are left out).
  const progress = progressLine();
  const expected = sizeOf(config.database.filename) + sizeOf(`${config.database.filename}-wal`);
  const timer =
    progress && setInterval(() => progress.update('writing the copy', sizeOf(target), expected, 'bytes'), 100);
  const bytes = await withConfiguredDatabase(config, {}, (db) =>
    backupSqlite(db, target, { force: Boolean(opts.force) }),
  ).finally(() => {
    clearInterval(timer);
    progress?.done();
  });
  if (opts.json) printJson({ file: target, bytes });
  else note(`wrote a copy of ${config.database.filename} to ${target} (${humanBytes(bytes)})`);
}
