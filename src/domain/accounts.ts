// Accounts and their roles (docs/http-api.md#access-rules); the last superuser is never demoted or deleted.
import type { Knex } from 'knex';
import { conflict, forbidden, invalid, notFound } from '../errors.js';
import { writeTransaction } from '../db/write-transaction.js';
import { insertedId } from '../db/row-id.js';
import { deleteAccountRow, setAccountRole } from './access-changes.js';
import { record, SYSTEM, type Acting } from './audit.js';
import type { Ctx } from './context.js';
import { atLeast, type Role } from './roles.js';
import { escapeUnsafe, findUnsafe } from '../unsafe-text.js';
import { parseInput, summary, v } from '../validation.js';

export interface Account {
  id: number;
  username: string;
  role: Role;
}

const USERNAME = v.pipe(
  v.string(),
  v.check(
    (name) => !findUnsafe(name),
    (issue) =>
      `invalid username "${escapeUnsafe(String(issue.input))}": it may not contain control characters or invisible ` +
      `formatting characters (found ${findUnsafe(String(issue.input))})`,
  ),
  v.regex(
    /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/,
    (issue) =>
      `invalid username "${String(issue.input)}": ` +
      '1-64 characters of letters, digits, ".", "_", "@", "-", starting with a letter or digit',
  ),
  v.check((name) => name.toLowerCase() !== SYSTEM, `"${SYSTEM}" is reserved`),
);

export async function getAccount({ db }: Pick<Ctx, 'db'>, username: string): Promise<Account> {
  const account = await db('accounts').where('username', username).first<Account | undefined>('id', 'username', 'role');
  if (!account) throw notFound(`no account named "${username}"`);
  return account;
}

/** The acting account, read in the transaction that acts: null without one, else an admin or superuser. */
export async function actingAdmin(trx: Knex.Transaction, by: Acting, what: string): Promise<Account | null> {
  if (by.account === undefined) return null;
  const actor = await getAccount({ db: trx }, by.account);
  if (!atLeast(actor.role, 'admin'))
    throw forbidden(`${actor.username} (${actor.role}) may not ${what}: only an admin or superuser may`);
  return actor;
}

function assertSuperuserActs(actor: Account | null, what: string): void {
  if (actor && actor.role !== 'superuser')
    throw forbidden(`${actor.username} (${actor.role}) may not ${what}: only a superuser may`);
}

/** The superusers' ids, locked until the transaction ends, so two concurrent demotions never both succeed. */
async function lockSuperusers(trx: Knex.Transaction): Promise<number[]> {
  const rows = await trx('accounts').where('role', 'superuser').forUpdate().select<{ id: number }[]>('id');
  return rows.map((r) => r.id);
}

function assertNotLastSuperuser(superusers: number[], account: Account, what: string): void {
  if (account.role === 'superuser' && superusers.every((id) => id === account.id)) {
    throw conflict(
      `${account.username} is the last superuser and may not be ${what}; make another account superuser first`,
    );
  }
}

export async function createAccount(ctx: Ctx, username: string, role: Role, by: Acting): Promise<Account> {
  parseInput(USERNAME, username, (errors) => invalid(summary(errors)));
  const now = ctx.clock.now().toISOString();
  return writeTransaction(ctx.db, async (trx) => {
    const actor = await actingAdmin(trx, by, 'change accounts');
    if (role === 'superuser') assertSuperuserActs(actor, 'create a superuser');
    if (await trx('accounts').where('username', username).first('id'))
      throw conflict(`an account named "${username}" already exists`);
    const rows: unknown = await trx('accounts')
      .insert({ username, role, created_at: now, updated_at: now })
      .returning('id');
    await record(trx, ctx.clock.now(), actor?.username ?? by.otherwise, 'account.create', `${username} (${role})`);
    return { id: insertedId(rows), username, role };
  });
}

export type AccountSummary = Pick<Account, 'username' | 'role'> & { tokens: number };

/** Accounts with their number of active tokens (not revoked, not expired). */
export async function listAccounts(ctx: Ctx): Promise<AccountSummary[]> {
  const now = ctx.clock.now().toISOString();
  const rows = (await ctx
    .db('accounts as a')
    .leftJoin('tokens as t', function () {
      this.on('t.account_id', 'a.id').andOnNull('t.revoked_at');
    })
    .select('a.username', 'a.role')
    .select(
      ctx.db.raw(
        'SUM(CASE WHEN t.id IS NOT NULL AND (t.expires_at IS NULL OR t.expires_at > ?) THEN 1 ELSE 0 END) AS tokens',
        [now],
      ),
    )
    .groupBy('a.id', 'a.username', 'a.role')
    .orderBy('a.username')) as { username: string; role: Role; tokens: number | string | null }[];
  return rows.map((r) => ({ username: r.username, role: r.role, tokens: Number(r.tokens ?? 0) }));
}

export async function setRole(ctx: Ctx, username: string, role: Role, by: Acting): Promise<Account> {
  return writeTransaction(ctx.db, async (trx) => {
    const superusers = await lockSuperusers(trx);
    const actor = await actingAdmin(trx, by, 'change accounts');
    const account = await getAccount({ db: trx }, username);
    if (account.role === role) return account;
    if (account.role === 'superuser')
      assertSuperuserActs(actor, `change the role of the superuser ${account.username}`);
    if (role === 'superuser') assertSuperuserActs(actor, 'make an account superuser');
    assertNotLastSuperuser(superusers, account, `made ${role}`);
    await setAccountRole(trx, account.id, role, ctx.clock.now().toISOString());
    const target = `${username} (${account.role} -> ${role})`;
    await record(trx, ctx.clock.now(), actor?.username ?? by.otherwise, 'account.set-role', target);
    return { ...account, role };
  });
}

export async function deleteAccount(ctx: Ctx, username: string, by: Acting): Promise<{ username: string }> {
  return writeTransaction(ctx.db, async (trx) => {
    const superusers = await lockSuperusers(trx);
    const actor = await actingAdmin(trx, by, 'change accounts');
    const account = await getAccount({ db: trx }, username);
    if (account.role === 'superuser') assertSuperuserActs(actor, `delete the superuser ${account.username}`);
    assertNotLastSuperuser(superusers, account, 'deleted');
    // Tokens go with the account, and the addresses they were used from with them (token_addresses:
    // ON DELETE CASCADE; every connection turns foreign keys on, db/connect.ts).
    await deleteAccountRow(trx, account.id);
    await record(trx, ctx.clock.now(), actor?.username ?? by.otherwise, 'account.delete', username);
    return { username };
  });
}
