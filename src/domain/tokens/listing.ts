// `token list`: an account sees its own tokens; admins and superusers (and the sysadmin, with
// no acting account) see everyone's.
import { forbidden } from '../../errors.js';
import { getAccount } from '../accounts.js';
import type { Ctx } from '../context.js';
import { mayListAllTokens } from './policy.js';
import { listTokens, type TokenView } from './queries.js';

export async function listTokensAs(
  ctx: Ctx,
  opts: { username?: string | undefined; all: boolean; actor?: string | undefined },
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
  return listTokens(ctx, { accountId, all: opts.all });
}
