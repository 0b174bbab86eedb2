import path from 'node:path';
import type { Command } from 'commander';
import { conflict, usage } from '../../errors.js';
import { openConfiguredDatabase, readConfig, type GlobalOptions } from '../context.js';
import { io } from '../io.js';
import { note, printJson } from '../output.js';

export function registerBackup(program: Command, globals: () => GlobalOptions): void {
  program
    .command('backup <file>')
    .description('write a consistent copy of the SQLite database to a new file (mode 0600), daemons running or not')
    .option('--force', 'replace the file when it exists')
    .option('--json', 'print {"file","bytes"}')
    .addHelpText(
      'after',
      `
The copy is a snapshot of one moment (SQLite's VACUUM INTO), taken while daemons go on serving
and writing: copying the database file itself while a daemon writes can lose recent commits.
It is a complete database: to restore, stop the daemons, put it in place of the database file
(mode 0600, owned by the daemon's user) and start them again. Files under dataDir (SIP uploads)
are not in the database: back them up with the file system.

On PostgreSQL this refuses (exit status 2): use pg_dump, e.g. pg_dump -Fc -f archive.dump "$DATABASE_URL".

Example:
  archivectl backup /var/backups/archivectl/archive-$(date +%F).sqlite3`,
    )
    .action(async (file: string, opts: { force?: boolean; json?: boolean }) => {
      const config = readConfig(globals());
      if (config.database.client !== 'sqlite3') {
        throw usage('backup copies SQLite databases; on PostgreSQL use pg_dump (pg_dump -Fc -f archive.dump …)');
      }
      const target = path.resolve(io().cwd, file);
      if (target === path.resolve(config.database.filename)) throw usage('the backup file is the database itself');
      const { backupSqlite, BackupRefused } = await import('../../db/backup.js');
      const db = await openConfiguredDatabase(config);
      try {
        const bytes = await backupSqlite(db, target, { force: Boolean(opts.force) });
        if (opts.json) printJson({ file: target, bytes });
        else note(`wrote a copy of ${config.database.filename} to ${target} (${bytes} bytes)`);
      } catch (err) {
        if (err instanceof BackupRefused) throw conflict(err.message);
        throw err;
      } finally {
        await db.destroy();
      }
    });
}
