import { helpText } from '../about.js';
import type { Command } from 'commander';
import type { Globals, JsonFlag } from '../context.js';

const actions = () => import('../actions/copy-database.js');

export function registerCopyDatabase(program: Command, globals: Globals): void {
  program
    .command('copy-database [postgres-url]')
    .description(
      'copy everything (accounts, token hashes, settings, audit log, catalogue) into a new, empty PostgreSQL database',
    )
    .option('--yes', 'do not ask (in a terminal it asks first; without one --yes is required)')
    .option('--json', 'print the number of rows copied per table')
    .addHelpText(
      'after',
      helpText(`
The target is the postgres:// URL given as the argument, else the environment variable
ARCHIVECTL_COPY_TO, else (when stdin is a terminal) typed at a prompt that does not echo it.
A URL on the command line is visible to every user of the machine (ps): keep a password out of
it, and give it in ARCHIVECTL_COPY_TO, at the prompt, or in PGPASSWORD, which the PostgreSQL
driver reads when the URL has no password.

The source is the configured database. Stop the daemons first, so nothing changes during the
copy; the target is migrated, must be empty, and is written in one transaction. Then point the
configuration at the target (database.client "pg", database.url, or DATABASE_URL) and start the
daemons again. Files under dataDir (SIP uploads) are not in the database: keep the same dataDir.

Examples:
  PGPASSWORD=… archivectl copy-database postgres://archive@db.internal/archive
  ARCHIVECTL_COPY_TO="$(cat /root/archive-target-url)" archivectl copy-database
  archivectl copy-database      # in a terminal: asks for the URL without echoing it`),
    )
    .action(async (argument: string | undefined, opts: JsonFlag & { yes?: boolean }) =>
      (await actions()).run(globals, argument, opts),
    );
}
