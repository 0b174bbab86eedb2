// GET /api/token: the presented token describes itself, as GitLab's
// `GET /personal_access_tokens/self` or Cloudflare's `/user/tokens/verify` do, so a script can
// check which token it holds, for whom, and until when. Never its value or any hash of it.
import { notFound } from '../../errors.js';
import type { Role } from '../roles.js';
import type { Ctx } from '../context.js';
import { storedLastUsed } from './last-used.js';
import { findTokenBySelector, toView, type TokenView } from './queries.js';

/**
 * The fields of the source document's API token, with the account's role as of this request,
 * and what narrows the token (its scopes, addresses and rate: queries.ts, TokenView).
 */
export type SelfView = Omit<TokenView, 'status'> & { role: Role };

/** `who`: the request's token, its role as judged now, and its last use (ms, this one counted). */
export async function describeSelf(
  ctx: Pick<Ctx, 'db' | 'clock'>,
  who: { selector: string; role: Role; lastUsed: number },
): Promise<SelfView> {
  const row = await findTokenBySelector(ctx, who.selector);
  // Deleted (pruned, its account deleted) between its admission and this read.
  if (!row) throw notFound('the token no longer exists');
  const { id, name, kind, account, created, expires, scopes, allow_from, rate_limit } = toView(row, ctx.clock.now());
  const lastUsed = Math.max(storedLastUsed(row.last_used_at), who.lastUsed);
  const lastUsedAt = Number.isFinite(lastUsed) ? new Date(lastUsed).toISOString() : null;
  return {
    id,
    name,
    kind,
    account,
    role: who.role,
    created,
    expires,
    last_used: lastUsedAt,
    scopes,
    allow_from,
    rate_limit,
  };
}
