// Creating, revoking, rotating, pruning and handing off tokens. The CLI calls these; the rules
// live here once (policy.ts for who may act, expiry.ts for dates).
import type { Knex } from 'knex';
import { writeTransaction } from '../../db/write-transaction.js';
import { conflict, invalid, notFound } from '../../errors.js';
import { revokeTokenRow, setTokenRestrictions } from '../access-changes.js';
import { getAccount, type Account } from '../accounts.js';
import { record, type Acting } from '../audit.js';
import type { Ctx } from '../context.js';
import { handoffExpiry } from './expiry.js';
import { expiryUnderPolicy, type RequestedExpiry } from './lifetime.js';
import { isSelector, mint, parse } from './format.js';
import { hashSecret, secretCheck, verifySecret } from './hash.js';
import { checkTokenName } from './names.js';
import { assertMayHandOff, assertMayManageTokens, assertMayManageTokensOf, assertMayReceiveToken } from './policy.js';
import { findTokenBySelector, tokenStatus, toView, type TokenKind, type TokenRow, type TokenView } from './queries.js';
import {
  readRestrictions,
  restrictionColumns,
  restrictionsText,
  UNRESTRICTED,
  type RestrictionColumns,
  type Restrictions,
} from './restrictions.js';

export interface CreatedToken {
  token: TokenView;
  /** The value, shown once. Never stored, logged or put in an error. */
  value: string;
  /** token_max_days when the lifetime policy chose the token's end (lifetime.ts). */
  policyDays?: number;
}

interface NewToken {
  account: Account;
  /** A name, or a function of the new token's id for names that must be unique by themselves. */
  name: string | ((selector: string) => string);
  kind: TokenKind;
  /** The end: a date (expiry.ts), a handoff token's instant alone, or null for none. */
  expiry: { expires: string | null; expiresAt: string } | null;
  /** The creation instant, when the end was counted from it (a handoff's 12 hours): one clock read. */
  createdAt?: Date;
  /** Its scopes, addresses and rate (UNRESTRICTED: every right of the account, as before). */
  restrictions: Restrictions;
}

const isRestricted = (c: RestrictionColumns) => c.scopes !== null || c.allow_from !== null || c.rate_limit !== null;

/** What an audit target adds for a restricted token at creation and rotation (nothing for others). */
const restrictedNote = (c: RestrictionColumns) => (isRestricted(c) ? `; ${restrictionsText(c)}` : '');

async function insertToken(ctx: Ctx, trx: Knex.Transaction, spec: NewToken): Promise<CreatedToken> {
  let minted = mint();
  // A selector is 8 random base62 characters (2^47); a clash is next to impossible, but it
  // would break the unique index, so draw again rather than fail.
  while (await trx('tokens').where('selector', minted.selector).first('id')) minted = mint();
  const name = typeof spec.name === 'string' ? spec.name : spec.name(minted.selector);
  const clash = await trx('tokens')
    .where({ account_id: spec.account.id, name })
    .whereNull('revoked_at')
    .first<{ id: number } | undefined>('id');
  if (clash)
    throw conflict(
      `${spec.account.username} already has a token named "${name}" (names are unique among non-revoked tokens)`,
    );
  const now = (spec.createdAt ?? ctx.clock.now()).toISOString();
  const row = {
    selector: minted.selector,
    account_id: spec.account.id,
    name,
    kind: spec.kind,
    secret_hash: await hashSecret(minted.secret),
    secret_check: secretCheck(minted.secret),
    expires: spec.expiry?.expires ?? null,
    expires_at: spec.expiry?.expiresAt ?? null,
    created_at: now,
    last_used_at: null,
    revoked_at: null,
    ...restrictionColumns(spec.restrictions),
  };
  await trx('tokens').insert(row);
  const view = toView({ id: 0, username: spec.account.username, ...row }, ctx.clock.now());
  return { token: view, value: minted.value };
}

export async function createToken(
  ctx: Ctx,
  input: { username: string; name: string; expires?: RequestedExpiry; actor: string; restrictions?: Restrictions },
): Promise<CreatedToken> {
  const name = checkTokenName(input.name);
  const { expiry, policyDays } = await expiryUnderPolicy(ctx, input.expires);
  const actor = await getAccount(ctx, input.actor);
  const owner = await getAccount(ctx, input.username);
  assertMayManageTokensOf(actor, owner, 'create');
  assertMayReceiveToken(owner);
  return writeTransaction(ctx.db, async (trx) => {
    const created = await insertToken(ctx, trx, {
      account: owner,
      name,
      kind: 'regular',
      expiry,
      restrictions: input.restrictions ?? UNRESTRICTED,
    });
    const target = `${created.token.id} "${name}" of ${owner.username}${restrictedNote(restrictionColumns(input.restrictions ?? UNRESTRICTED))}`;
    await record(trx, ctx.clock.now(), actor.username, 'token.create', target);
    return policyDays === null ? created : { ...created, policyDays };
  });
}

/** The token with this id (its selector). `id` is never echoed: a pasted value would reach logs. */
export async function getToken(ctx: Ctx, id: string): Promise<TokenRow> {
  if (parse(id)) {
    throw invalid(
      'that is a token value, not its id: a value on the command line stays in shell history and shows in ps. ' +
        'Give the 8-character id shown by token list, or pipe the value in: archivectl token revoke - (or lookup -)',
    );
  }
  // A short word is a typo of an id, named as such; a longer text may be part of a value, never quoted.
  if (!isSelector(id)) {
    if (/^[A-Za-z0-9_-]{1,16}$/.test(id)) throw notFound(`no token with id ${id} (an id is 8 letters and digits)`);
    throw invalid('that is not a token id: give the 8-character id shown by token list, not the value');
  }
  const row = await findTokenBySelector(ctx, id);
  if (!row) throw notFound(`no token with id ${id}`);
  return row;
}

/** The token of a value (a leak's answer), only if the secret matches. Never quotes `value`. */
export async function findTokenByValue(ctx: Ctx, value: string): Promise<TokenRow> {
  const parsed = parse(value);
  if (!parsed)
    throw invalid('that is not a token value (arc_ and 54 letters and digits, or a 60-character legacy value)');
  const row = await findTokenBySelector(ctx, parsed.selector);
  if (!row || !(await verifySecret(row.secret_hash, parsed.secret)))
    throw notFound('no token of this installation has that value (pruned, or never issued here)');
  return row;
}

export async function revokeToken(
  ctx: Ctx,
  id: string,
  actorName: string,
): Promise<{ token: TokenView; alreadyRevoked: boolean }> {
  const actor = await getAccount(ctx, actorName);
  const row = await getToken(ctx, id);
  assertMayManageTokensOf(actor, await getAccount(ctx, row.username), 'revoke');
  if (row.revoked_at) return { token: toView(row, ctx.clock.now()), alreadyRevoked: true };
  const now = ctx.clock.now().toISOString();
  await writeTransaction(ctx.db, async (trx) => {
    await revokeTokenRow(trx, row.id, now);
    const target = `${row.selector} "${row.name}" of ${row.username}`;
    await record(trx, ctx.clock.now(), actor.username, 'token.revoke', target);
  });
  return { token: toView({ ...row, revoked_at: now }, ctx.clock.now()), alreadyRevoked: false };
}

/** A new value with the same name; the old token is revoked in the same transaction. */
export async function rotateToken(
  ctx: Ctx,
  id: string,
  actorName: string,
  expires?: RequestedExpiry,
): Promise<CreatedToken> {
  const actor = await getAccount(ctx, actorName);
  const row = await getToken(ctx, id);
  const owner = await getAccount(ctx, row.username);
  assertMayManageTokensOf(actor, owner, 'rotate');
  assertMayReceiveToken(owner);
  const status = tokenStatus(row, ctx.clock.now());
  if (status !== 'active') throw conflict(`token ${id} is ${status}; create a new token instead`);
  if (row.kind === 'handoff') throw conflict(`token ${id} is a 12-hour handoff token; run token handoff for a new one`);
  // A regular or legacy token's end is a date (only handoff tokens, refused above, end at an instant).
  const old =
    row.expires !== null && row.expires_at !== null ? { expires: row.expires, expiresAt: row.expires_at } : null;
  const { expiry, policyDays } = await expiryUnderPolicy(ctx, expires, old);
  const now = ctx.clock.now().toISOString();
  return writeTransaction(ctx.db, async (trx) => {
    if (!(await revokeTokenRow(trx, row.id, now))) throw conflict(`token ${id} was revoked meanwhile`);
    // A rotated legacy token becomes a regular one: the new value has the new format. It keeps
    // what narrows the old one: a rotation renews a value, it grants nothing.
    const created = await insertToken(ctx, trx, {
      account: owner,
      name: row.name,
      kind: 'regular',
      expiry,
      restrictions: readRestrictions(row),
    });
    const target = `${row.selector} -> ${created.token.id} "${row.name}" of ${row.username}${restrictedNote(row)}`;
    await record(trx, ctx.clock.now(), actor.username, 'token.rotate', target);
    return policyDays === null ? created : { ...created, policyDays };
  });
}

/** What `token update` changes: each given restriction replaces the token's (null lifts it). */
export type RestrictionChange = Partial<Restrictions>;

/**
 * Narrows or widens an active token in place (its value stays): scopes, addresses, rate. Under
 * the rule of rotation (who may act on whose tokens); every daemon re-reads the token on its
 * next request (access-changes.ts).
 */
export async function updateToken(
  ctx: Ctx,
  id: string,
  actorName: string,
  change: RestrictionChange,
): Promise<{ token: TokenView; changed: boolean }> {
  const actor = await getAccount(ctx, actorName);
  const row = await getToken(ctx, id);
  assertMayManageTokensOf(actor, await getAccount(ctx, row.username), 'update');
  const status = tokenStatus(row, ctx.clock.now());
  if (status !== 'active') throw conflict(`token ${id} is ${status}; nothing to update`);
  const columns = restrictionColumns({ ...readRestrictions(row), ...change });
  const before = restrictionsText(row);
  const after = restrictionsText(columns);
  if (after === before) return { token: toView(row, ctx.clock.now()), changed: false };
  await writeTransaction(ctx.db, async (trx) => {
    // Only while it is still active: a revocation meanwhile wins.
    const still = await trx('tokens')
      .where('id', row.id)
      .whereNull('revoked_at')
      .first<{ id: number } | undefined>('id');
    if (!still) throw conflict(`token ${id} was revoked meanwhile`);
    await setTokenRestrictions(trx, row.id, columns);
    const target = `${row.selector} "${row.name}" of ${row.username}: ${after} (was ${before})`;
    await record(trx, ctx.clock.now(), actor.username, 'token.update', target);
  });
  return { token: toView({ ...row, ...columns }, ctx.clock.now()), changed: true };
}

/** Deletes expired and revoked tokens; without an acting account (a sysadmin's cron job) too. */
export async function pruneTokens(ctx: Ctx, opts: { dryRun: boolean; by: Acting }): Promise<{ pruned: number }> {
  let actor = opts.by.otherwise;
  if (opts.by.account !== undefined) {
    const acting = await getAccount(ctx, opts.by.account);
    assertMayManageTokens(acting, 'prune');
    actor = acting.username;
  }
  const now = ctx.clock.now().toISOString();
  // A grouping callback returns nothing: a query builder is thenable, and returning one would
  // read as a promise handed where none is awaited.
  const dead = (q: Knex.QueryBuilder): void => {
    q.whereNotNull('revoked_at').orWhere('expires_at', '<=', now);
  };
  if (opts.dryRun) {
    const row = (await ctx.db('tokens').where(dead).count({ n: '*' }).first()) as { n: number | string };
    return { pruned: Number(row.n) };
  }
  return writeTransaction(ctx.db, async (trx) => {
    // The addresses the tokens were used from go with them (token_addresses: ON DELETE CASCADE).
    const pruned = await trx('tokens').where(dead).delete();
    if (pruned > 0) await record(trx, ctx.clock.now(), actor, 'token.prune', `${pruned} expired or revoked tokens`);
    return { pruned };
  });
}

/** A 12-hour handoff token (source: "Open in the external viewer"); expired ones go first. */
export async function handoffToken(ctx: Ctx, username: string, actorName: string): Promise<CreatedToken> {
  const owner = await getAccount(ctx, username);
  const actor = await getAccount(ctx, actorName);
  assertMayHandOff(actor, owner);
  assertMayReceiveToken(owner);
  const now = ctx.clock.now();
  return writeTransaction(ctx.db, async (trx) => {
    const removed = await trx('tokens').where('kind', 'handoff').where('expires_at', '<=', now.toISOString()).delete();
    const created = await insertToken(ctx, trx, {
      account: owner,
      name: (selector) => `External viewer handoff ${selector}`,
      kind: 'handoff',
      expiry: { expires: null, expiresAt: handoffExpiry(now) },
      createdAt: now,
      restrictions: UNRESTRICTED,
    });
    const note = removed > 0 ? ` (removed ${removed} expired handoff tokens)` : '';
    await record(trx, now, actor.username, 'token.handoff', `${created.token.id} of ${owner.username}${note}`);
    return created;
  });
}
