import type { Command } from 'commander';
import { ROLES } from '../../domain/roles.js';
import { withDb, type GlobalOptions } from '../context.js';
import { note, printJson, printTable, printTokens } from '../output.js';

interface JsonFlag {
  json?: boolean;
}

export function registerAccount(program: Command, globals: () => GlobalOptions): void {
  const account = program
    .command('account')
    .description('manage accounts and their roles')
    .addHelpText('after', `\nRoles, lowest to highest: ${ROLES.join(', ')}.`);

  account
    .command('create <username>')
    .description('create an account')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--json', 'print {"username","role"}')
    .addHelpText('after', '\nExample:\n  archivectl account create ingest-bot --role editor')
    .action(async (username: string, opts: { role: string } & JsonFlag) => {
      const { createAccount } = await import('../../domain/accounts.js');
      const created = await withDb(globals(), (ctx) => createAccount(ctx, username, opts.role));
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
      else await printTable(['Username', 'Role', 'Active tokens'], accounts.map((a) => [a.username, a.role, a.tokens]));
    });

  account
    .command('show <username>')
    .description('an account and its tokens (name, last used, expiry, status, kind)')
    .option('--json', 'print {"username","role","tokens":[TOKEN]}')
    .action(async (username: string, opts: JsonFlag) => {
      const { showAccount } = await import('../../domain/accounts.js');
      const shown = await withDb(globals(), (ctx) => showAccount(ctx, username));
      if (opts.json) {
        printJson(shown);
        return;
      }
      process.stdout.write(`Account: ${shown.username}\nRole:    ${shown.role}\n`);
      await printTokens(shown.tokens, false);
    });

  account
    .command('set-role <username> <role>')
    .description('change the role (in effect on the next request)')
    .option('--json', 'print {"username","role"}')
    .action(async (username: string, role: string, opts: JsonFlag) => {
      const { setRole } = await import('../../domain/accounts.js');
      const changed = await withDb(globals(), (ctx) => setRole(ctx, username, role));
      if (opts.json) printJson({ username: changed.username, role: changed.role });
      else note(`${changed.username} is now ${changed.role}`);
    });

  account
    .command('delete <username>')
    .description('delete the account; its tokens stop working at once')
    .option('--json', 'print {"username"}')
    .action(async (username: string, opts: JsonFlag) => {
      const { deleteAccount } = await import('../../domain/accounts.js');
      const deleted = await withDb(globals(), (ctx) => deleteAccount(ctx, username));
      if (opts.json) printJson(deleted);
      else note(`deleted account ${deleted.username} and its tokens`);
    });
}
