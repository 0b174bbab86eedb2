import { shellWord } from '../../config/file-trust.js';
import { withConfiguredDatabase, readConfig, type Globals } from '../context.js';
import { io } from '../io.js';
import { note } from '../text-output.js';

export async function run(globals: Globals, opts: { to?: string; backup: boolean }): Promise<void> {
  const config = readConfig(globals());
  const { backupBeforeMigrating, migrateLatest, migrateTo, refuseNewerSchema } = await import('../../db/migrate.js');
  const { databaseLocation } = await import('../../db/connect.js');
  const { expectedSchema } = await import('../../release/versions.js');
  const where = databaseLocation(config.database);
  await withConfiguredDatabase(config, { create: true }, async (db) => {
    // Null for a new database: nothing in it to back up or roll back to.
    const before = await refuseNewerSchema(db, where);
    const from = before?.database ?? null;
    const target = opts.to ?? expectedSchema();
    const changes = from !== null && (opts.to === undefined ? (before?.pending.length ?? 0) > 0 : from !== target);
    let backup: string | null = null;
    if (from !== null && changes && config.database.client === 'sqlite3' && opts.backup) {
      backup = await backupBeforeMigrating(db, from, io().clock.now());
      note(`backup of schema ${from}: ${backup} (mode 0600)`);
    } else if (changes && config.database.client === 'pg') {
      note('PostgreSQL: archivectl takes no backup; the documented upgrade takes one with pg_dump -Fc first');
    }
    const done = opts.to === undefined ? await migrateLatest(db) : await migrateTo(db, opts.to);
    if (done.length === 0) {
      note(`the database is up to date (schema ${target})`);
      return;
    }
    note(opts.to === undefined ? `applied: ${done.join(', ')}` : `ran: ${done.join(', ')}; schema ${target}`);
    if (from === null) return;
    note(`to roll back: stop every daemon, then run this release's archivectl migrate --to ${from}`);
    if (backup && config.database.client === 'sqlite3') {
      const file = shellWord(config.database.filename);
      note(`  or restore the backup: rm -f ${file}-wal ${file}-shm && cp -p ${shellWord(backup)} ${file}`);
    } else if (config.database.client === 'pg') {
      note('  or restore your pg_dump into an empty database (pg_restore --clean --if-exists)');
    }
    note(
      '  a restore also undoes everything written since: tokens revoked or reported as leaked since work again; prefer migrate --to',
    );
    note('  and start the release that ran on that schema (docs/upgrading.md, "Rolling back")');
  });
}
