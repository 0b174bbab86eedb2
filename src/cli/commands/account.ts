import type { Command } from 'commander';
import type { AsFlag, Globals, JsonFlag } from '../context.js';
import { ROLES } from '../../domain/roles.js';

const actions = () => import('../actions/account.js');

const AS_HELP = 'the admin or superuser doing it (else ARCHIVECTL_AS; without either, the audit log names the OS user)';

export function registerAccount(program: Command, globals: Globals): void {
  const account = program
    .command('account')
    .description('manage accounts and their roles')
    .addHelpText(
      'after',
      `
Roles, lowest to highest: ${ROLES.join(', ')}.

create, set-role and delete take --as <username> (or ARCHIVECTL_AS): the acting account must be
an admin or superuser, and only a superuser creates a superuser, makes an account superuser, or
changes or deletes a superuser. Without an acting account (the first account of an
installation) the audit log records the operating-system user as os:<name>. The last superuser
is never demoted or deleted.`,
    );

  account
    .command('create <username>')
    .description('create an account')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--as <admin>', AS_HELP)
    .option('--json', 'print {"username","role"}')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  archivectl account create root --role superuser      # the first account\n' +
        '  archivectl account create ingest-bot --role editor --as root',
    )
    .action(async (username: string, opts: { role: string } & AsFlag & JsonFlag) =>
      (await actions()).create(globals, username, opts),
    );

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
    .option('--as <admin>', AS_HELP)
    .option('--json', 'print {"username","role"}')
    .action(async (username: string, roleName: string, opts: AsFlag & JsonFlag) =>
      (await actions()).changeRole(globals, username, roleName, opts),
    );

  account
    .command('delete <username>')
    .description('delete the account; its tokens stop working at once')
    .option('--as <admin>', AS_HELP)
    .option('--yes', 'do not ask (in a terminal, deleting an account with active tokens asks first)')
    .option('--json', 'print {"username"}')
    .action(async (username: string, opts: AsFlag & JsonFlag & { yes?: boolean }) =>
      (await actions()).remove(globals, username, opts),
    );
}
