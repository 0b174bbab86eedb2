// GET /api/token: the presented token describes itself, as GitLab's
// `GET /personal_access_tokens/self` or Cloudflare's `/user/tokens/verify` do, so a script can
// check which token it holds, for whom, and until when. Never its value or any hash of it.
import { notFound } from '../../errors.js';
import type { Role } from '../roles.js';
import type { Ctx } from '../context.js';
import { findTokenBySelector, toView, type TokenKind } from './queries.js';

/** The fields of the source document's API token, with the account's role as of this request. */
export interface SelfView {
  id: string;
  name: string;
  kind: TokenKind;
  account: string;
  role: Role;
  created: string;
  expires: string | null;
  last_used: string | null;
}

/**
 * `who` is the request's verified token: its id, its account's role as judged for this request,
 * and the last use as recorded with this one (ms; the request counts as a use).
 */
export async function describeSelf(
  ctx: Pick<Ctx, 'db' | 'clock'>,
  who: { selector: string; role: Role; lastUsed: number },
): Promise<SelfView> {
  const row = await findTokenBySelector(ctx, who.selector);
  // Deleted (pruned, its account deleted) between its admission and this read.
  if (!row) throw notFound('the token no longer exists');
  const view = toView(row, ctx.clock.now());
  const stored = row.last_used_at ? Date.parse(row.last_used_at) : Number.NEGATIVE_INFINITY;
  const lastUsed = Math.max(stored, who.lastUsed);
  return {
    id: view.id,
    name: view.name,
    kind: view.kind,
    account: view.account,
    role: who.role,
    created: view.created,
    expires: view.expires,
    last_used: Number.isFinite(lastUsed) ? new Date(lastUsed).toISOString() : null,
  };
}
