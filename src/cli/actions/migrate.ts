// What archivectl migrate does (its options and help are in ../commands/migrate.ts).
// Loaded only when it runs.
import { openConfiguredDatabase, readConfig, type GlobalOptions } from '../context.js';
import { note } from '../text-output.js';

type Globals = () => GlobalOptions;

export async function run(globals: Globals): Promise<void> {
  const config = readConfig(globals());
  const { migrateLatest } = await import('../../db/migrate.js');
  const db = await openConfiguredDatabase(config, { create: true });
  try {
    const applied = await migrateLatest(db);
    note(applied.length === 0 ? 'the database is up to date' : `applied: ${applied.join(', ')}`);
  } finally {
    await db.destroy();
  }
}
