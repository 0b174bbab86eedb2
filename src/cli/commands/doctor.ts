import { helpText } from '../about.js';
import type { Command } from 'commander';
import type { Globals } from '../context.js';

const actions = () => import('../actions/doctor.js');

export function registerDoctor(program: Command, globals: Globals): void {
  program
    .command('doctor')
    .description(
      'check the installation: config, database, migrations, file modes, dataDir, token lifetimes (and daemons on PostgreSQL)',
    )
    .option('--json', 'print [{"check","status","detail"}] (status ok, warn or fail)')
    .addHelpText(
      'after',
      helpText(`
Checks, in order: the configuration file (found, valid, owned by you or root and writable by
no one else), the database (there, reachable; on SQLite its file owned by you or root, mode
0600), migrations (all applied), dataDir (writable by this user: run doctor as the daemon's
user), on PostgreSQL the daemons' heartbeats (SQLite daemons register nowhere: no such line),
and while token_max_days is set, the active tokens that end later than it allows (made before
it). Nothing is created or changed. Exit status 1 when any check fails; a warning (no daemon
running, dataDir not created yet, tokens beyond token_max_days) does not fail.

Example:
  sudo -u archive archivectl doctor`),
    )
    .action(async (opts: { json?: boolean }) => (await actions()).run(globals, opts));
}
