import { helpText } from '../about.js';
import type { Command } from 'commander';
import type { Globals, JsonFlag } from '../context.js';

const actions = () => import('../actions/backup.js');

export function registerBackup(program: Command, globals: Globals): void {
  program
    .command('backup <file>')
    .description('write a consistent copy of the SQLite database to a new file (mode 0600), daemons running or not')
    .option('--force', 'replace the file when it exists')
    .option('--json', 'print {"file","bytes"}')
    .addHelpText(
      'after',
      helpText(`
The copy is a snapshot of one moment (SQLite's VACUUM INTO), taken while daemons go on serving
and writing: copying the database file itself while a daemon writes can lose recent commits.
It is a complete database: to restore, stop the daemons, put it in place of the database file
(mode 0600, owned by the daemon's user) and start them again. Files under dataDir (SIP uploads)
are not in the database: back them up with the file system.

On PostgreSQL this refuses (exit status 2): use pg_dump, e.g. pg_dump -Fc -f archive.dump "$DATABASE_URL".

Example:
  archivectl backup /var/backups/archivectl/archive-$(date +%F).sqlite3`),
    )
    .action(async (file: string, opts: { force?: boolean } & JsonFlag) => (await actions()).run(globals, file, opts));
}
