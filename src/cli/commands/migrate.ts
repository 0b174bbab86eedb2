import type { Command } from 'commander';
import type { Globals } from '../context.js';

const actions = () => import('../actions/migrate.js');

export function registerMigrate(program: Command, globals: Globals): void {
  program
    .command('migrate')
    .description(
      'create the database, or apply pending migrations to it (the only command besides serve that creates one or changes its schema)',
    )
    .option('--to <schema>', 'bring the schema to this version of this release, running down migrations to go back')
    .option('--no-backup', 'SQLite: do not write the backup taken before the schema changes')
    .addHelpText(
      'after',
      `
A schema version is the name of a migration (e.g. 20261202000000_search_statistics);
archivectl --version names the one this release expects, archivectl doctor the database's.
Other commands refuse a database with pending migrations (exit status 2) and change nothing.

Before changing the schema of an existing SQLite database, migrate writes a consistent copy
next to it, named with the schema it holds (<database>.schema-<version>.<UTC time>.bak,
mode 0600), and prints how to roll back. On PostgreSQL it takes none: run pg_dump first.

Upgrade: stop every daemon, take a backup (PostgreSQL: pg_dump -Fc), migrate, start the new
release. Roll back: stop, then either migrate --to <the older release's schema> (with this
release) or restore the backup, and start the older release. See docs/upgrading.md.

A database migrated by a later release is refused by every command, migrate and serve too.`,
    )
    .action(async (opts: { to?: string; backup: boolean }) => (await actions()).run(globals, opts));
}
