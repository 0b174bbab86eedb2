// Reading tokens, and the one place where a stored row becomes the TOKEN shape of docs/cli.md.
import type { Knex } from 'knex';
import type { Ctx } from '../context.js';
import type { Role } from '../roles.js';
import { utcDate } from '../../clock.js';
import { shownRestrictions, type RestrictionColumns } from './restrictions.js';

export const TOKEN_KINDS = ['regular', 'legacy', 'handoff'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];
export const TOKEN_STATUSES = ['active', 'expired', 'revoked'] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];

export interface TokenRow extends RestrictionColumns {
  id: number;
  selector: string;
  account_id: number;
  username: string;
  /** The owning account's role (a blocked account's tokens are refused). */
  role: Role;
  name: string;
  kind: TokenKind;
  secret_hash: string;
  /** secretCheck of the secret (hash.ts); null until a token made before it is next used. */
  secret_check: string | null;
  expires: string | null;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/**
 * The TOKEN object of docs/cli.md, in that key order, and then what narrows the token: `scopes`
 * (`["*"]`: every right of its account), `allow_from` (CIDR blocks; null: from anywhere) and
 * `rate_limit` (`N/minute` or `N/hour`; null: none of its own).
 */
export interface TokenView {
  id: string;
  account: string;
  name: string;
  kind: TokenKind;
  status: TokenStatus;
  created: string;
  last_used: string | null;
  expires: string | null;
  scopes: string[];
  allow_from: string[] | null;
  rate_limit: string | null;
}

/** A token is refused from its expiry instant on; revocation wins over expiry. */
export function tokenStatus(row: Pick<TokenRow, 'revoked_at' | 'expires_at'>, now: Date): TokenStatus {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && now.toISOString() >= row.expires_at) return 'expired';
  return 'active';
}

export function toView(row: Omit<TokenRow, 'role'>, now: Date): TokenView {
  return {
    id: row.selector,
    account: row.username,
    name: row.name,
    kind: row.kind,
    status: tokenStatus(row, now),
    created: row.created_at,
    last_used: row.last_used_at,
    // Handoff tokens end at an instant; the date shown is the last UTC day on which they are
    // accepted (the day of the last millisecond before that instant), as for dated expiry.
    expires: row.expires ?? (row.expires_at ? utcDate(new Date(Date.parse(row.expires_at) - 1)) : null),
    ...shownRestrictions(row),
  };
}

/**
 * The one query of token rows with their account's name and role (listings, lookups,
 * authentication). Every column of the token (TokenRow's): a daemon running while the newest
 * migration is rolled back under it (docs/upgrading.md) reads rows without the columns that
 * migration added, and goes on answering; a restriction column missing reads as none.
 */
function tokenQuery(ctx: Pick<Ctx, 'db'>) {
  return ctx.db('tokens as t').join('accounts as a', 'a.id', 't.account_id').select('t.*', 'a.username', 'a.role');
}

export interface TokenFilter {
  accountId?: number | undefined;
  /** Expired and revoked tokens too (ignored when `status` is given). */
  all: boolean;
  status?: TokenStatus | undefined;
  /** Only active tokens whose expiry is before this instant. */
  expiringBefore?: Date | undefined;
  kind?: TokenKind | undefined;
  /** Only tokens never used, or last used before this instant. */
  unusedSince?: Date | undefined;
  limit?: number | undefined;
}

/** A token as `token list` shows it: the TOKEN object and the address of its last recorded use. */
export type ListedToken = TokenView & { last_used_from: string | null };

/** The address of a token's most recent recorded use (token_addresses), as a column of the row. */
function lastUsedFrom(ctx: Pick<Ctx, 'db'>) {
  return ctx
    .db('token_addresses as ta')
    .select('ta.address')
    .whereRaw('ta.token_id = t.id')
    .orderBy([{ column: 'ta.last_seen_at', order: 'desc' }, { column: 'ta.address' }])
    .limit(1)
    .as('last_used_from');
}

/** A `.where()` callback: tokens (aliased `t`) active at ISO time `now`, as tokenStatus judges. */
export function activeAt(now: string): (q: Knex.QueryBuilder) => void {
  return (q) => {
    void q.whereNull('t.revoked_at').where((b) => {
      void b.whereNull('t.expires_at').orWhere('t.expires_at', '>', now);
    });
  };
}

/** One query, whatever the filter: the rows come back in the order shown. */
export async function listTokens(ctx: Ctx, opts: TokenFilter): Promise<ListedToken[]> {
  // One instant for the filter and the statuses shown: a token filtered as active is shown active.
  const at = ctx.clock.now();
  const now = at.toISOString();
  const query = tokenQuery(ctx)
    .select(lastUsedFrom(ctx))
    .orderBy([{ column: 'a.username' }, { column: 't.created_at' }, { column: 't.id' }]);
  if (opts.accountId !== undefined) query.where('t.account_id', opts.accountId);
  if (opts.kind !== undefined) query.where('t.kind', opts.kind);
  if (opts.unusedSince !== undefined) {
    const since = opts.unusedSince.toISOString();
    query.where((q) => {
      q.whereNull('t.last_used_at').orWhere('t.last_used_at', '<', since);
    });
  }
  const status = opts.status ?? (opts.all && !opts.expiringBefore ? undefined : 'active');
  if (status === 'revoked') query.whereNotNull('t.revoked_at');
  if (status === 'expired') query.whereNull('t.revoked_at').where('t.expires_at', '<=', now);
  if (status === 'active') query.where(activeAt(now));
  if (opts.expiringBefore) {
    query.whereNull('t.revoked_at').where('t.expires_at', '>', now);
    query.where('t.expires_at', '<=', opts.expiringBefore.toISOString());
  }
  if (opts.limit !== undefined) query.limit(opts.limit);
  const rows = (await query) as (TokenRow & { last_used_from: string | null })[];
  return rows.map((r) => ({ ...toView(r, at), last_used_from: r.last_used_from }));
}

export async function findTokenBySelector(ctx: Pick<Ctx, 'db'>, selector: string): Promise<TokenRow | undefined> {
  return (await tokenQuery(ctx).where('t.selector', selector).first()) as TokenRow | undefined;
}

/** The rows of `selectors` (each once), in one query per 500. */
export async function findTokensBySelectors(ctx: Pick<Ctx, 'db'>, selectors: readonly string[]): Promise<TokenRow[]> {
  const rows: TokenRow[] = [];
  for (let i = 0; i < selectors.length; i += 500)
    rows.push(...((await tokenQuery(ctx).whereIn('t.selector', selectors.slice(i, i + 500))) as TokenRow[]));
  return rows;
}

/**
 * Active tokens that carry every right (no scopes) of an admin or superuser account and never
 * end: what `doctor` warns about, as the tokens a leak would cost the most.
 */
export async function unboundedAdminTokens(ctx: Ctx): Promise<TokenView[]> {
  const at = ctx.clock.now();
  const rows = (await tokenQuery(ctx)
    .where(activeAt(at.toISOString()))
    .whereNull('t.scopes')
    .whereNull('t.expires_at')
    .whereIn('a.role', ['admin', 'superuser'])
    .orderBy([{ column: 'a.username' }, { column: 't.created_at' }, { column: 't.id' }])) as TokenRow[];
  return rows.map((r) => toView(r, at));
}
