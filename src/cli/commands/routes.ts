// The routes command as --help, the man page and completion see it: name, options, help.
// What it does is in ../actions/routes.ts, loaded only when it runs.
import type { Command } from 'commander';
import type { GlobalOptions } from '../context.js';

const actions = () => import('../actions/routes.js');

export function registerRoutes(program: Command, globals: () => GlobalOptions): void {
  program
    .command('routes')
    .description(
      'the access matrix: every route, its rule, and whether it is open without a token under the current settings',
    )
    .option('--json', 'print [{"method","path","rule","open"}]')
    .action(async (opts: { json?: boolean }) => (await actions()).run(globals, opts));
}
