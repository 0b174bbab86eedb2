// The token lifetime policy (`settings set token_max_days N`; README "Token lifetimes"): a new
// regular token ends at most N days from today, exactly then without --expires. Existing tokens
// are never changed (doctor lists those beyond it); handoff and legacy tokens are outside it.
import { utcDate } from '../../clock.js';
import { invalid } from '../../errors.js';
import { addDays, parseDate } from '../dates.js';
import type { Ctx } from '../context.js';
import { readTokenMaxDays } from '../settings.js';
import { LATEST_EXPIRY, parseExpiry, type Expiry } from './expiry.js';
import { activeAt, type TokenView } from './queries.js';

/** `--expires D`, `--no-expires` (null), or none (undefined: the policy's end, or the old one). */
export type RequestedExpiry = string | null | undefined;

/** The last expiry date the policy allows for a token made at `now`. */
export function policyLimit(maxDays: number, now: Date): string {
  const today = parseDate(utcDate(now)) as Date;
  const limit = utcDate(addDays(today, maxDays));
  return limit > LATEST_EXPIRY ? LATEST_EXPIRY : limit;
}

/**
 * The end of a new regular token (null: none), `requested` checked against the policy, and the
 * policy's days when the policy chose it. `otherwise` is the end without --expires when the
 * policy is off (none for create; the old token's for rotate).
 */
export async function expiryUnderPolicy(
  ctx: Ctx,
  requested: RequestedExpiry,
  otherwise: Expiry | null = null,
): Promise<{ expiry: Expiry | null; policyDays: number | null }> {
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

export type BeyondPolicy = Pick<TokenView, 'id' | 'account' | 'name' | 'expires'>;

/** Active regular tokens that end later than the policy allows today, or never; null when it is off. */
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
