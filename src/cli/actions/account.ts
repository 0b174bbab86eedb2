import { ROLE, parseArg } from '../args.js';
import { acting, confirmDestructive, mayAdminister } from '../ask.js';
import { withDb, type AsFlag, type Globals, type JsonFlag } from '../context.js';
import { note, printJson, printTable, printTokens, shown, writeOut } from '../output.js';

export type CreateFlags = { role: string } & AsFlag & JsonFlag;
export type DeleteFlags = AsFlag & JsonFlag & { yes?: boolean };

export async function create(globals: Globals, username: string, opts: CreateFlags): Promise<void> {
  const role = parseArg(ROLE, opts.role);
  const { createAccount } = await import('../../domain/accounts.js');
  const created = await withDb(globals(), async (ctx) => {
    const by = await acting(ctx, opts.as, mayAdminister(ctx, 'change accounts'));
    return createAccount(ctx, username, role, by);
  });
  if (opts.json) printJson({ username: created.username, role: created.role });
  else note(`created account ${created.username} (${created.role})`);
}

export async function list(globals: Globals, opts: JsonFlag): Promise<void> {
  const { listAccounts } = await import('../../domain/accounts.js');
  const accounts = await withDb(globals(), (ctx) => listAccounts(ctx));
  if (opts.json) printJson(accounts);
  else if (accounts.length === 0) note('no accounts');
  else
    await printTable(
      ['Username', 'Role', 'Active tokens'],
      accounts.map((a) => [a.username, a.role, a.tokens]),
      { flex: ['Username'] },
    );
}

export async function show(globals: Globals, username: string, opts: JsonFlag): Promise<void> {
  const { showAccount } = await import('../../domain/tokens/listing.js');
  const account = await withDb(globals(), (ctx) => showAccount(ctx, username));
  if (opts.json) printJson(account);
  else {
    writeOut(`Account: ${shown(account.username)}\nRole:    ${account.role}\n`);
    await printTokens(account.tokens, false);
  }
}

export async function changeRole(
  globals: Globals,
  username: string,
  roleName: string,
  opts: AsFlag & JsonFlag,
): Promise<void> {
  const role = parseArg(ROLE, roleName);
  const { setRole } = await import('../../domain/accounts.js');
  const changed = await withDb(globals(), async (ctx) =>
    setRole(ctx, username, role, await acting(ctx, opts.as, mayAdminister(ctx, 'change accounts'))),
  );
  if (opts.json) printJson({ username: changed.username, role: changed.role });
  else note(`${changed.username} is now ${changed.role}`);
}

export async function remove(globals: Globals, username: string, opts: DeleteFlags): Promise<void> {
  const { deleteAccount, listAccounts } = await import('../../domain/accounts.js');
  const deleted = await withDb(globals(), async (ctx) => {
    const by = await acting(ctx, opts.as, mayAdminister(ctx, 'change accounts'));
    await confirmDestructive(opts.yes, async () => {
      const active = (await listAccounts(ctx)).find((a) => a.username === username)?.tokens ?? 0;
      return active > 0
        ? `Delete ${shown(username)} and its ${active} active token(s)? They stop working at once.`
        : null;
    });
    return deleteAccount(ctx, username, by);
  });
  if (opts.json) printJson(deleted);
  else note(`deleted account ${deleted.username} and its tokens`);
}
