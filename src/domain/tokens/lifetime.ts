// The token lifetime policy (`settings set token_max_days N`), as GitHub's and GitLab's
// maximum token lifetimes: while it is set, a new regular token (create, rotate) ends at most N
// days from today, and without --expires it gets exactly that end. Tokens that exist are never
// changed by it (doctor lists those beyond it). Handoff tokens (12 hours) and imported legacy
// tokens are outside it.
import { utcDate } from '../../clock.js';
import { invalid } from '../../errors.js';
import { addDays, parseDate } from '../dates.js';
import type { Ctx } from '../context.js';
import { readTokenMaxDays } from '../settings.js';
import { LATEST_EXPIRY, parseExpiry, type Expiry } from './expiry.js';
import { activeAt } from './queries.js';

/**
 * What the command asked for: a date (`--expires D`), no end (`--no-expires`: null), or
 * nothing (undefined: the policy's end, or for rotate the old token's).
 */
export type RequestedExpiry = string | null | undefined;

export interface LifetimeDecision {
  /** The new token's end, or null for none. */
  expiry: Expiry | null;
  /** The policy's days when the policy chose the end (no --expires given). */
  policyDays: number | null;
}

/** The last expiry date the policy allows for a token made at `now`. */
export function policyLimit(maxDays: number, now: Date): string {
  const today = parseDate(utcDate(now)) as Date;
  const limit = utcDate(addDays(today, maxDays));
  return limit > LATEST_EXPIRY ? LATEST_EXPIRY : limit;
}

/**
 * The end of a new regular token: `requested` checked against the policy (token_max_days).
 * `otherwise` is the end without --expires when the policy is off (none for create; the old
 * token's for rotate).
 */
export async function expiryUnderPolicy(
  ctx: Ctx,
  requested: RequestedExpiry,
  otherwise: Expiry | null = null,
): Promise<LifetimeDecision> {
  const maxDays = await readTokenMaxDays(ctx);
  const now = ctx.clock.now();
  const given = typeof requested === 'string' ? parseExpiry(requested, now) : null;
  if (maxDays === null) return { expiry: requested === undefined ? otherwise : given, policyDays: null };
  const limit = policyLimit(maxDays, now);
  const policy = `token_max_days is ${maxDays}: new tokens end ${limit} at the latest`;
  if (requested === null) throw invalid(`a token without an expiry date is not allowed (${policy}); give --expires`);
  if (given) {
    if (given.expires > limit) throw invalid(`--expires ${given.expires} is too late (${policy})`);
    return { expiry: given, policyDays: null };
  }
  return { expiry: parseExpiry(limit, now), policyDays: maxDays };
}

export interface BeyondPolicy {
  id: string;
  account: string;
  name: string;
  /** YYYY-MM-DD, or null: no end. */
  expires: string | null;
}

/**
 * Active regular tokens that end later than the policy would allow a token made today, or
 * never: made before the policy, and left as they were. Null when the policy is off.
 */
export async function tokensBeyondPolicy(
  ctx: Ctx,
): Promise<{ maxDays: number; limit: string; tokens: BeyondPolicy[] } | null> {
  const maxDays = await readTokenMaxDays(ctx);
  if (maxDays === null) return null;
  const now = ctx.clock.now();
  const limit = policyLimit(maxDays, now);
  const rows = await ctx
    .db('tokens as t')
    .join('accounts as a', 'a.id', 't.account_id')
    .where('t.kind', 'regular')
    .where(activeAt(now.toISOString()))
    .where((q) => {
      q.whereNull('t.expires').orWhere('t.expires', '>', limit);
    })
    .orderBy([{ column: 'a.username' }, { column: 't.created_at' }, { column: 't.id' }])
    .select<BeyondPolicy[]>('t.selector as id', 'a.username as account', 't.name', 't.expires');
  return { maxDays, limit, tokens: rows };
}
