import { parseArg, SINCE } from '../args.js';
import { withDb, type Globals } from '../context.js';
import { note, printJson, printTable, humanTime } from '../output.js';

export async function run(globals: Globals, opts: { since?: string; json?: boolean }): Promise<void> {
  const since = opts.since === undefined ? undefined : parseArg(SINCE, opts.since);
  const { listAudit } = await import('../../domain/audit.js');
  const entries = await withDb(globals(), (ctx) => listAudit(ctx, since));
  if (opts.json) printJson(entries);
  else if (entries.length === 0) note('no audit entries');
  else
    await printTable(
      ['At', 'Actor', 'Action', 'Target'],
      entries.map((e) => [humanTime(e.at), e.actor, e.action, e.target]),
      { flex: ['Actor', 'Target'] },
    );
}
