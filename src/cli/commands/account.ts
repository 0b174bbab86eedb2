import type { Command } from 'commander';
import type { AsFlag, Globals, JsonFlag } from '../context.js';
import type { CreateFlags, DeleteFlags } from '../actions/account.js';
import { ROLES } from '../../domain/roles.js';
import { optionalAsHelp, helpText } from '../about.js';

const actions = () => import('../actions/account.js');

export function registerAccount(program: Command, globals: Globals): void {
  const account = program
    .command('account')
    .description('manage accounts and their roles')
    .addHelpText(
      'after',
      helpText(`
Roles, lowest to highest: ${ROLES.join(', ')}.

create, set-role and delete need --as <username> (or ARCHIVECTL_AS; asked in a terminal): the acting account must be an admin or superuser, and only a superuser creates a superuser, makes an account superuser, or changes or deletes a superuser. The first account of an installation has nobody to act as: while there is no account, the audit log records the operating-system user as os:<name>. The last superuser is never demoted or deleted. Without a terminal, delete needs --yes.`),
    );

  account
    .command('create <username>')
    .description('create an account')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--as <admin>', optionalAsHelp('doing it'))
    .option('--json', 'print {"username","role"}')
    .addHelpText(
      'after',
      helpText(
        '\nExamples:\n' +
          '  archivectl account create root --role superuser      # the first account\n' +
          '  archivectl account create ingest-bot --role editor --as root',
      ),
    )
    .action(async (username: string, opts: CreateFlags) => (await actions()).create(globals, username, opts));

  account
    .command('list')
    .description('accounts with their role and number of active tokens')
    .option('--json', 'print [{"username","role","tokens"}]')
    .action(async (opts: JsonFlag) => (await actions()).list(globals, opts));

  account
    .command('show <username>')
    .description('an account and its tokens (name, last used, expiry, status, kind)')
    .option('--json', 'print {"username","role","tokens":[TOKEN]}')
    .action(async (username: string, opts: JsonFlag) => (await actions()).show(globals, username, opts));

  account
    .command('set-role <username> <role>')
    .description('change the role (in effect on the next request)')
    .option('--as <admin>', optionalAsHelp('doing it'))
    .option('--json', 'print {"username","role"}')
    .action(async (username: string, roleName: string, opts: AsFlag & JsonFlag) =>
      (await actions()).changeRole(globals, username, roleName, opts),
    );

  account
    .command('delete <username>')
    .description('delete the account; its tokens stop working at once')
    .option('--as <admin>', optionalAsHelp('doing it'))
    .option(
      '--yes',
      'do not ask (in a terminal, deleting an account with active tokens asks first; without one --yes is required)',
    )
    .option('--json', 'print {"username"}')
    .action(async (username: string, opts: DeleteFlags) => (await actions()).remove(globals, username, opts));
}
