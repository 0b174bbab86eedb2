// Accounts and their roles (SPEC §2). Managed by the sysadmin; changes reach running daemons
// on the next request through the authorisation generation.
import { conflict, invalid, notFound } from '../errors.js';
import { writeTransaction } from '../db/connect.js';
import { bumpGeneration } from './auth-state.js';
import { record, SYSTEM } from './audit.js';
import type { Ctx } from './context.js';
import { parseRole, type Role } from './roles.js';
import { listTokens, type TokenView } from './tokens/queries.js';

export interface Account {
  id: number;
  username: string;
  role: Role;
}

const USERNAME_RE = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export function checkUsername(username: string): string {
  if (!USERNAME_RE.test(username)) {
    throw invalid(
      `invalid username "${username}": 1-64 characters of letters, digits, ".", "_", "@", "-", starting with a letter or digit`,
    );
  }
  // The audit log names the CLI itself `system`; an account of that name would be ambiguous.
  if (username.toLowerCase() === SYSTEM) throw invalid(`"${SYSTEM}" is reserved`);
  return username;
}

export async function findAccount(ctx: Pick<Ctx, 'db'>, username: string): Promise<Account | undefined> {
  return (await ctx.db('accounts').where('username', username).first('id', 'username', 'role')) as
    | Account
    | undefined;
}

export async function getAccount(ctx: Pick<Ctx, 'db'>, username: string): Promise<Account> {
  const account = await findAccount(ctx, username);
  if (!account) throw notFound(`no account named "${username}"`);
  return account;
}

export async function createAccount(ctx: Ctx, username: string, roleName: string): Promise<Account> {
  checkUsername(username);
  const role = parseRole(roleName);
  const now = ctx.clock.now().toISOString();
  return writeTransaction(ctx.db, async (trx) => {
    if (await trx('accounts').where('username', username).first('id')) {
      throw conflict(`an account named "${username}" already exists`);
    }
    const [row] = (await trx('accounts')
      .insert({ username, role, created_at: now, updated_at: now })
      .returning('id')) as ({ id: number } | number)[];
    await record(trx, ctx.clock.now(), SYSTEM, 'account.create', `${username} (${role})`);
    const id = typeof row === 'object' ? row.id : (row as number);
    return { id, username, role };
  });
}

export interface AccountSummary {
  username: string;
  role: Role;
  tokens: number;
}

/** Accounts with their number of active tokens (not revoked, not expired). */
export async function listAccounts(ctx: Ctx): Promise<AccountSummary[]> {
  const now = ctx.clock.now().toISOString();
  const rows = (await ctx.db('accounts as a')
    .leftJoin('tokens as t', function () {
      this.on('t.account_id', 'a.id').andOnNull('t.revoked_at');
    })
    .select('a.username', 'a.role')
    .select(
      ctx.db.raw('SUM(CASE WHEN t.id IS NOT NULL AND (t.expires_at IS NULL OR t.expires_at > ?) THEN 1 ELSE 0 END) AS tokens', [now]),
    )
    .groupBy('a.id', 'a.username', 'a.role')
    .orderBy('a.username')) as { username: string; role: Role; tokens: number | string | null }[];
  return rows.map((r) => ({ username: r.username, role: r.role, tokens: Number(r.tokens ?? 0) }));
}

export async function showAccount(ctx: Ctx, username: string): Promise<{ username: string; role: Role; tokens: TokenView[] }> {
  const account = await getAccount(ctx, username);
  const tokens = await listTokens(ctx, { accountId: account.id, all: true });
  return { username: account.username, role: account.role, tokens };
}

export async function setRole(ctx: Ctx, username: string, roleName: string): Promise<Account> {
  const role = parseRole(roleName);
  return writeTransaction(ctx.db, async (trx) => {
    const account = (await trx('accounts').where('username', username).first('id', 'username', 'role')) as Account | undefined;
    if (!account) throw notFound(`no account named "${username}"`);
    if (account.role !== role) {
      await trx('accounts').where('id', account.id).update({ role, updated_at: ctx.clock.now().toISOString() });
      await bumpGeneration(trx);
      await record(trx, ctx.clock.now(), SYSTEM, 'account.set-role', `${username} (${account.role} -> ${role})`);
    }
    return { ...account, role };
  });
}

export async function deleteAccount(ctx: Ctx, username: string): Promise<{ username: string }> {
  return writeTransaction(ctx.db, async (trx) => {
    const account = (await trx('accounts').where('username', username).first('id')) as { id: number } | undefined;
    if (!account) throw notFound(`no account named "${username}"`);
    // Tokens go with the account (explicitly, not only by ON DELETE CASCADE, so it holds even
    // where foreign keys are not enforced).
    await trx('tokens').where('account_id', account.id).delete();
    await trx('accounts').where('id', account.id).delete();
    await bumpGeneration(trx);
    await record(trx, ctx.clock.now(), SYSTEM, 'account.delete', username);
    return { username };
  });
}
