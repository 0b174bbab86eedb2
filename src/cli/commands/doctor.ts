import type { Command } from 'commander';
import { conflict } from '../../errors.js';
import { readConfig, type GlobalOptions } from '../context.js';
import { printJson, printTable } from '../output.js';

export function registerDoctor(program: Command, globals: () => GlobalOptions): void {
  program
    .command('doctor')
    .description('check the installation: config, database, migrations, file modes, dataDir, daemons')
    .option('--json', 'print [{"check","status","detail"}] (status ok, warn or fail)')
    .addHelpText(
      'after',
      `
Checks, in order: the configuration file (found, valid, not world-writable), the database
(there, reachable, its file mode 0600 on SQLite), migrations (all applied), dataDir (writable
by this user: run doctor as the daemon's user), and on PostgreSQL the daemons' heartbeats.
Nothing is created or changed. Exit status 1 when any check fails; a warning (no daemon
running, dataDir not created yet) does not fail.

Example:
  sudo -u archive archivectl doctor`,
    )
    .action(async (opts: { json?: boolean }) => {
      const { runChecks } = await import('../doctor-checks.js');
      const findings = await runChecks(() => readConfig(globals()));
      if (opts.json) printJson(findings);
      else
        printTable(
          ['Status', 'Check', 'Detail'],
          // Details are never cut: they say how to fix what is wrong.
          findings.map((f) => [f.status === 'fail' ? 'FAIL' : f.status, f.check, f.detail]),
        );
      const failed = findings.filter((f) => f.status === 'fail').length;
      if (failed > 0) throw conflict(`${failed} check(s) failed`);
    });
}
