import type { Command } from 'commander';
import type { Globals } from '../context.js';

const actions = () => import('../actions/audit.js');

export function registerAudit(program: Command, globals: Globals): void {
  program
    .command('audit')
    .description(
      'the audit log: who created, rotated, revoked, pruned or imported tokens, changed settings or accounts',
    )
    .option('--since <YYYY-MM-DD>', 'only entries from this day (UTC) on')
    .option('--json', 'print [{"at","actor","action","target"}]')
    .action(async (opts: { since?: string; json?: boolean }) => (await actions()).run(globals, opts));
}
