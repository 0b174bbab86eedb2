import type { Command } from 'commander';
import { parseArg, SINCE } from '../args.js';
import { withDb, type GlobalOptions } from '../context.js';
import { note, printJson, printTable, humanTime } from '../output.js';

export function registerAudit(program: Command, globals: () => GlobalOptions): void {
  program
    .command('audit')
    .description(
      'the audit log: who created, rotated, revoked, pruned or imported tokens, changed settings or accounts',
    )
    .option('--since <YYYY-MM-DD>', 'only entries from this day (UTC) on')
    .option('--json', 'print [{"at","actor","action","target"}]')
    .action(async (opts: { since?: string; json?: boolean }) => {
      const since = opts.since === undefined ? undefined : parseArg(SINCE, opts.since);
      const { listAudit } = await import('../../domain/audit.js');
      const entries = await withDb(globals(), (ctx) => listAudit(ctx, since));
      if (opts.json) printJson(entries);
      else if (entries.length === 0) note('no audit entries');
      else
        printTable(
          ['At', 'Actor', 'Action', 'Target'],
          entries.map((e) => [humanTime(e.at), e.actor, e.action, e.target]),
          { flex: [1, 3] },
        );
    });
}
