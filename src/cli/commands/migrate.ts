import type { Command } from 'commander';
import { readConfig, type GlobalOptions } from '../context.js';
import { note } from '../output.js';

export function registerMigrate(program: Command, globals: () => GlobalOptions): void {
  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const config = readConfig(globals());
      const { openDatabase } = await import('../../db/connect.js');
      const { migrateLatest } = await import('../../db/migrate.js');
      const db = await openDatabase(config.database);
      try {
        const applied = await migrateLatest(db);
        note(applied.length === 0 ? 'the database is up to date' : `applied: ${applied.join(', ')}`);
      } finally {
        await db.destroy();
      }
    });
}
