import type { Command } from 'commander';
import type { Globals } from '../context.js';

const actions = () => import('../actions/serve.js');

export function registerServe(program: Command, globals: Globals): void {
  program
    .command('serve')
    .description('run the API daemon (logs JSON lines to stdout; stops cleanly on SIGTERM)')
    .option('--host <host>', 'listen address (overrides listen.host; not used with sockets passed by systemd)')
    .option('--port <port>', 'listen port (overrides listen.port; not used with sockets passed by systemd)')
    .option(
      '--no-migrate',
      'refuse to start while migrations are pending (without it, serve applies them; on SQLite after the backup migrate takes)',
    )
    .action(async (opts: { host?: string; port?: string; migrate: boolean }) => (await actions()).run(globals, opts));
}
