// `token list` and `token lookup`: an account sees its own tokens; admins and superusers (and the sysadmin, with
// no acting account) see everyone's.
import { forbidden } from '../../errors.js';
import { getAccount } from '../accounts.js';
import type { Role } from '../roles.js';
import type { Ctx } from '../context.js';
import { mayListAllTokens } from './policy.js';
import { listTokens, toView, type TokenFilter, type TokenView } from './queries.js';

export async function listTokensAs(
  ctx: Ctx,
  opts: Omit<TokenFilter, 'accountId'> & { username?: string | undefined; actor?: string | undefined },
): Promise<TokenView[]> {
  let username = opts.username;
  if (opts.actor !== undefined) {
    const actor = await getAccount(ctx, opts.actor);
    if (!mayListAllTokens(actor)) {
      if (username !== undefined && username !== actor.username) {
        throw forbidden(`${actor.username} (${actor.role}) sees only its own tokens`);
      }
      username = actor.username;
    }
  }
  const accountId = username === undefined ? undefined : (await getAccount(ctx, username)).id;
  const { all, status, expiringBefore, limit } = opts;
  return listTokens(ctx, { accountId, all, status, expiringBefore, limit });
}

/** `token lookup -`: the token a value belongs to, seen with the same rights as token list. */
export async function lookupTokenAs(ctx: Ctx, value: string, actorName: string | undefined): Promise<TokenView> {
  // The value is checked against its hash: the service and the KDF, which a list never needs.
  const { findTokenByValue } = await import('./service.js');
  const row = await findTokenByValue(ctx, value);
  if (actorName !== undefined) {
    const actor = await getAccount(ctx, actorName);
    if (!mayListAllTokens(actor) && actor.username !== row.username) {
      throw forbidden(`${actor.username} (${actor.role}) sees only its own tokens`);
    }
  }
  return toView(row, ctx.clock.now());
}

/** `account show`: one account and all its tokens. */
export async function showAccount(
  ctx: Ctx,
  username: string,
): Promise<{ username: string; role: Role; tokens: TokenView[] }> {
  const account = await getAccount(ctx, username);
  const tokens = await listTokens(ctx, { accountId: account.id, all: true });
  return { username: account.username, role: account.role, tokens };
}
