import type { Command } from 'commander';
import { ROLES } from '../../domain/roles.js';
import type { Acting } from '../../domain/audit.js';
import { ROLE, parseArg } from '../args.js';
import { confirm, isInteractive, optionalActor, osActor } from '../ask.js';
import { withDb, type GlobalOptions } from '../context.js';
import { note, printJson, printTable, printTokens, shown, writeOut } from '../output.js';

interface JsonFlag {
  json?: boolean;
}

interface AsFlag {
  as?: string;
}

/** --as, else ARCHIVECTL_AS; without either the audit log names the operating-system user. */
function acting(opts: AsFlag): Acting {
  return { account: optionalActor(opts.as), otherwise: osActor() };
}

const AS_HELP = 'the admin or superuser doing it (else ARCHIVECTL_AS; without either, the audit log names the OS user)';

export function registerAccount(program: Command, globals: () => GlobalOptions): void {
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
    .action(async (username: string, opts: { role: string } & AsFlag & JsonFlag) => {
      const role = parseArg(ROLE, opts.role);
      const { createAccount } = await import('../../domain/accounts.js');
      const created = await withDb(globals(), (ctx) => createAccount(ctx, username, role, acting(opts)));
      if (opts.json) printJson({ username: created.username, role: created.role });
      else note(`created account ${created.username} (${created.role})`);
    });

  account
    .command('list')
    .description('accounts with their role and number of active tokens')
    .option('--json', 'print [{"username","role","tokens"}]')
    .action(async (opts: JsonFlag) => {
      const { listAccounts } = await import('../../domain/accounts.js');
      const accounts = await withDb(globals(), (ctx) => listAccounts(ctx));
      if (opts.json) printJson(accounts);
      else if (accounts.length === 0) note('no accounts');
      else
        printTable(
          ['Username', 'Role', 'Active tokens'],
          accounts.map((a) => [a.username, a.role, a.tokens]),
          { flex: [0] },
        );
    });

  account
    .command('show <username>')
    .description('an account and its tokens (name, last used, expiry, status, kind)')
    .option('--json', 'print {"username","role","tokens":[TOKEN]}')
    .action(async (username: string, opts: JsonFlag) => {
      const { showAccount } = await import('../../domain/accounts.js');
      const account = await withDb(globals(), (ctx) => showAccount(ctx, username));
      if (opts.json) {
        printJson(account);
        return;
      }
      writeOut(`Account: ${shown(account.username)}\nRole:    ${account.role}\n`);
      printTokens(account.tokens, false);
    });

  account
    .command('set-role <username> <role>')
    .description('change the role (in effect on the next request)')
    .option('--as <admin>', AS_HELP)
    .option('--json', 'print {"username","role"}')
    .action(async (username: string, roleName: string, opts: AsFlag & JsonFlag) => {
      const role = parseArg(ROLE, roleName);
      const { setRole } = await import('../../domain/accounts.js');
      const changed = await withDb(globals(), (ctx) => setRole(ctx, username, role, acting(opts)));
      if (opts.json) printJson({ username: changed.username, role: changed.role });
      else note(`${changed.username} is now ${changed.role}`);
    });

  account
    .command('delete <username>')
    .description('delete the account; its tokens stop working at once')
    .option('--as <admin>', AS_HELP)
    .option('--yes', 'do not ask (in a terminal, deleting an account with active tokens asks first)')
    .option('--json', 'print {"username"}')
    .action(async (username: string, opts: AsFlag & JsonFlag & { yes?: boolean }) => {
      const { deleteAccount, listAccounts } = await import('../../domain/accounts.js');
      const deleted = await withDb(globals(), async (ctx) => {
        if (!opts.yes && isInteractive()) {
          const active = (await listAccounts(ctx)).find((a) => a.username === username)?.tokens ?? 0;
          if (active > 0) {
            await confirm(
              `Delete ${shown(username)} and its ${active} active token(s)? They stop working at once.`,
              false,
            );
          }
        }
        return deleteAccount(ctx, username, acting(opts));
      });
      if (opts.json) printJson(deleted);
      else note(`deleted account ${deleted.username} and its tokens`);
    });
}
