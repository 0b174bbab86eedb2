import type { Command } from 'commander';
import { openConfiguredDatabase, readConfig, type GlobalOptions } from '../context.js';
import { note } from '../output.js';

export function registerMigrate(program: Command, globals: () => GlobalOptions): void {
  program
    .command('migrate')
    .description(
      'create the database, or apply pending migrations to it (the only command besides serve that creates one)',
    )
    .action(async () => {
      const config = readConfig(globals());
      const { migrateLatest } = await import('../../db/migrate.js');
      const db = await openConfiguredDatabase(config, { create: true });
      try {
        const applied = await migrateLatest(db);
        note(applied.length === 0 ? 'the database is up to date' : `applied: ${applied.join(', ')}`);
      } finally {
        await db.destroy();
      }
    });
}
