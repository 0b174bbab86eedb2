import type { Command } from 'commander';
import type { AsFlag, Globals, JsonFlag } from '../context.js';
import { optionalAsHelp, helpText } from '../about.js';

const actions = () => import('../actions/settings.js');

export function registerSettings(program: Command, globals: Globals): void {
  const settings = program
    .command('settings')
    .description('show the settings public_api, public_access and token_max_days')
    .option('--json', 'print {"public_api": bool, "public_access": bool, "token_max_days": n or null}')
    .addHelpText(
      'after',
      helpText(`
public_access   the archive is public: authority endpoints answer without a token
public_api      read-only API without a token (GET/HEAD on /api/objects and authority endpoints)
token_max_days  the longest lifetime of a new token, in days, or off (the default): while set,
                token create and token rotate without --expires end the token that many days
                from today, and a later --expires (or --no-expires) is refused. Tokens that
                exist keep their ends (doctor lists those beyond it); handoff and imported
                legacy tokens are outside it.
Changes of public_access and public_api are in effect in every running daemon from the next
request.`),
    )
    .action(async (opts: { json?: boolean }) => (await actions()).show(globals, opts));

  settings
    .command('set <name> <value>')
    .description('set public_api or public_access to on or off, or token_max_days to a number of days or off')
    .option('--as <admin>', optionalAsHelp('changing it'))
    .option('--json', 'print the settings as JSON')
    .addHelpText(
      'after',
      helpText(`
The audit log records who changed it: the --as account (an admin or superuser; asked in a terminal), or, on an installation without any account yet, the operating-system user as os:<name>.

Examples:
  archivectl settings set public_access on --as alice
  archivectl settings set token_max_days 90 --as alice`),
    )
    .action(async (name: string, value: string, opts: AsFlag & JsonFlag) =>
      (await actions()).set(globals, name, value, opts),
    );
}
