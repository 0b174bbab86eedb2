import type { Command } from 'commander';
import type { Globals } from '../context.js';

const actions = () => import('../actions/migrate.js');

export function registerMigrate(program: Command, globals: Globals): void {
  program
    .command('migrate')
    .description(
      'create the database, or apply pending migrations to it (the only command besides serve that creates one)',
    )
    .action(async () => (await actions()).run(globals));
}
