import { withConfiguredDatabase, readConfig, type Globals } from '../context.js';
import { note } from '../text-output.js';

export async function run(globals: Globals): Promise<void> {
  const config = readConfig(globals());
  const { migrateLatest } = await import('../../db/migrate.js');
  const applied = await withConfiguredDatabase(config, { create: true }, migrateLatest);
  note(applied.length === 0 ? 'the database is up to date' : `applied: ${applied.join(', ')}`);
}
