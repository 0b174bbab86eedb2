import { parseArg, POSTGRES_URL } from '../args.js';
import { askSecret, confirmDestructive } from '../ask.js';
import { withConfiguredDatabase, readConfig, type Globals } from '../context.js';
import { io } from '../io.js';
import { note, printJson, printTable } from '../output.js';
import { usage } from '../../errors.js';

/** True when a connection URL carries a password (in its user part or as ?password=). */
function hasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return false;
  }
}

/** The target URL: the argument, else ARCHIVECTL_COPY_TO, else asked without echo (it may hold a password). */
async function targetUrl(argument: string | undefined): Promise<string> {
  if (argument !== undefined) {
    if (hasPassword(argument)) {
      note(
        'note: a password in the command line is visible to other users of this machine (ps, /proc); ' +
          'use ARCHIVECTL_COPY_TO, the prompt, or PGPASSWORD instead',
      );
    }
    return argument;
  }
  const fromEnv = io().env.ARCHIVECTL_COPY_TO;
  if (fromEnv) return fromEnv;
  const typed = await askSecret('PostgreSQL URL of the target database:');
  if (typed === undefined) {
    throw usage(
      'missing the target: give ARCHIVECTL_COPY_TO=<postgres-url> ' +
        '(or the URL as an argument, or run it in a terminal to be asked)',
    );
  }
  if (!typed.trim()) throw usage('missing the target postgres:// URL');
  return typed.trim();
}

/** The target as a question may name it: host and database, never the user or a password. */
function shownTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the target';
  }
}

export async function run(
  globals: Globals,
  argument: string | undefined,
  opts: { json?: boolean; yes?: boolean },
): Promise<void> {
  const url = parseArg(POSTGRES_URL, await targetUrl(argument), usage);
  await confirmDestructive(opts.yes, async () => `Copy everything into the PostgreSQL database ${shownTarget(url)}?`);
  const config = readConfig(globals());
  const { openDatabase } = await import('../../db/connect.js');
  const { copyDatabase } = await import('../../db/copy.js');
  const { progressLine } = await import('../progress.js');
  const progress = progressLine();
  const counts = await withConfiguredDatabase(config, {}, async (source) => {
    const target = await openDatabase({ client: 'pg', url, pool: { min: 0, max: 2 } });
    try {
      return await copyDatabase(
        source,
        target,
        progress && ((table, rows) => progress.update(`copying ${table}`, rows)),
      );
    } finally {
      progress?.done();
      await target.destroy();
    }
  });
  if (opts.json) printJson(counts);
  else {
    await printTable(['Table', 'Rows copied'], Object.entries(counts));
    note('copied; point the configuration at the new database and start the daemons');
  }
}
