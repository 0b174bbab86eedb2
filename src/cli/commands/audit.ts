// The audit command as --help, the man page and completion see it: name, options, help.
// What it does is in ../actions/audit.ts, loaded only when it runs.
import type { Command } from 'commander';
import type { GlobalOptions } from '../context.js';

const actions = () => import('../actions/audit.js');

export function registerAudit(program: Command, globals: () => GlobalOptions): void {
  program
    .command('audit')
    .description(
      'the audit log: who created, rotated, revoked, pruned or imported tokens, changed settings or accounts',
    )
    .option('--since <YYYY-MM-DD>', 'only entries from this day (UTC) on')
    .option('--json', 'print [{"at","actor","action","target"}]')
    .action(async (opts: { since?: string; json?: boolean }) => (await actions()).run(globals, opts));
}
