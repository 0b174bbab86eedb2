// The migrate command as --help, the man page and completion see it: name, options, help.
// What it does is in ../actions/migrate.ts, loaded only when it runs.
import type { Command } from 'commander';
import type { GlobalOptions } from '../context.js';

const actions = () => import('../actions/migrate.js');

export function registerMigrate(program: Command, globals: () => GlobalOptions): void {
  program
    .command('migrate')
    .description(
      'create the database, or apply pending migrations to it (the only command besides serve that creates one)',
    )
    .action(async () => (await actions()).run(globals));
}
