// The settings commands as --help, the man page and completion see them: names, options, help.
// What they do is in ../actions/settings.ts, loaded only when one of them runs.
import type { Command } from 'commander';
import type { GlobalOptions } from '../context.js';
import type { AsFlag, JsonFlag } from '../flags.js';

const actions = () => import('../actions/settings.js');

export function registerSettings(program: Command, globals: () => GlobalOptions): void {
  const settings = program
    .command('settings')
    .description('show the settings public_api and public_access')
    .option('--json', 'print {"public_api": bool, "public_access": bool}')
    .addHelpText(
      'after',
      `
public_access  the archive is public: authority endpoints answer without a token
public_api     read-only API without a token (GET/HEAD on /api/objects and authority endpoints)
Changes are in effect in every running daemon from the next request.`,
    )
    .action(async (opts: { json?: boolean }) => (await actions()).show(globals, opts));

  settings
    .command('set <name> <value>')
    .description('set public_api or public_access to on or off')
    .option(
      '--as <admin>',
      'the admin or superuser changing it (else ARCHIVECTL_AS; without either, the audit log names the OS user)',
    )
    .option('--json', 'print the settings as JSON')
    .addHelpText(
      'after',
      `
The audit log records who changed it: the --as account, or the operating-system user who ran
the command as os:<name>.

Example:
  archivectl settings set public_access on --as alice`,
    )
    .action(async (name: string, value: string, opts: AsFlag & JsonFlag) =>
      (await actions()).set(globals, name, value, opts),
    );
}
