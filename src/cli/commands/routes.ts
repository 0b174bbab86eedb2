import type { Command } from 'commander';
import type { Globals } from '../context.js';

const actions = () => import('../actions/routes.js');

export function registerRoutes(program: Command, globals: Globals): void {
  program
    .command('routes')
    .description(
      'the access matrix: every route, its rule, the scope a token needs, and whether it is open without a token under the current settings',
    )
    .option('--json', 'print [{"method","path","rule","open","scope"}]')
    .option('--markdown', 'print the access and scope tables of docs/http-api.md (the rules, not the settings)')
    .action(async (opts: { json?: boolean; markdown?: boolean }) => (await actions()).run(globals, opts));
}
