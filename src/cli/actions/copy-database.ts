// What archivectl copy-database does (its options and help are in ../commands/copy-database.ts).
// Loaded only when it runs.
import { parseArg, POSTGRES_URL } from '../args.js';
import { askSecret } from '../ask.js';
import { openConfiguredDatabase, readConfig, type GlobalOptions } from '../context.js';
import { io } from '../io.js';
import { note, printJson, printTable } from '../output.js';
import { usage } from '../../errors.js';

type Globals = () => GlobalOptions;

/** True when a connection URL carries a password (in its user part or as ?password=). */
function hasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return false;
  }
}

/**
 * The target URL: the argument, else ARCHIVECTL_COPY_TO, else typed at a hidden prompt when
 * stdin is a terminal. Never echoed: it may hold a password.
 */
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

export async function run(globals: Globals, argument: string | undefined, opts: { json?: boolean }): Promise<void> {
  const url = parseArg(POSTGRES_URL, await targetUrl(argument), usage);
  const config = readConfig(globals());
  const { openDatabase } = await import('../../db/connect.js');
  const { copyDatabase } = await import('../../db/copy.js');
  const source = await openConfiguredDatabase(config);
  const target = await openDatabase({ client: 'pg', url, pool: { min: 0, max: 2 } });
  try {
    const counts = await copyDatabase(source, target);
    if (opts.json) printJson(counts);
    else {
      await printTable(
        ['Table', 'Rows copied'],
        Object.entries(counts).map(([t, n]) => [t, n]),
      );
      note('copied; point the configuration at the new database and start the daemons');
    }
  } finally {
    await Promise.all([source.destroy(), target.destroy()]);
  }
}
