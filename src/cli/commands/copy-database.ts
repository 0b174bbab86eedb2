import type { Command } from 'commander';
import { readConfig, type GlobalOptions } from '../context.js';
import { note, printJson, printTable } from '../output.js';
import { usage } from '../../errors.js';

export function registerCopyDatabase(program: Command, globals: () => GlobalOptions): void {
  program
    .command('copy-database <target-url>')
    .description('copy everything (accounts, token hashes, settings, audit log, catalogue) into a new, empty PostgreSQL database')
    .option('--json', 'print the number of rows copied per table')
    .addHelpText(
      'after',
      `
The source is the configured database. Stop the daemons first, so nothing changes during the
copy; the target is migrated, must be empty, and is written in one transaction. Then point the
configuration at the target (database.client "pg", database.url, or DATABASE_URL) and start the
daemons again. Files under dataDir (SIP uploads) are not in the database: keep the same dataDir.

Example:
  archivectl copy-database postgres://archive@db.internal/archive`,
    )
    .action(async (targetUrl: string, opts: { json?: boolean }) => {
      if (!/^postgres(ql)?:\/\//.test(targetUrl)) throw usage('the target must be a postgres:// URL');
      const config = readConfig(globals());
      const { openDatabase } = await import('../../db/connect.js');
      const { copyDatabase } = await import('../../db/copy.js');
      const source = await openDatabase(config.database);
      const target = await openDatabase({ client: 'pg', url: targetUrl, pool: { min: 0, max: 2 } });
      try {
        const counts = await copyDatabase(source, target);
        if (opts.json) printJson(counts);
        else {
          await printTable(['Table', 'Rows copied'], Object.entries(counts).map(([t, n]) => [t, n]));
          note('copied; point the configuration at the new database and start the daemons');
        }
      } finally {
        await Promise.all([source.destroy(), target.destroy()]);
      }
    });
}
