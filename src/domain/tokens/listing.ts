// `token list`, `show` and `lookup`: an account sees its own tokens; admins and superusers (and the
// sysadmin, with no acting account) see everyone's.
import { forbidden } from '../../errors.js';
import { getAccount, type Account } from '../accounts.js';
import type { Role } from '../roles.js';
import type { Ctx } from '../context.js';
import { mayListAllTokens } from './policy.js';
import { listTokens, toView, type ListedToken, type TokenFilter, type TokenView } from './queries.js';

const seesOnlyItsOwn = (actor: Account) => forbidden(`${actor.username} (${actor.role}) sees only its own tokens`);

export async function listTokensAs(
  ctx: Ctx,
  opts: Omit<TokenFilter, 'accountId'> & { username?: string | undefined; actor?: string | undefined },
): Promise<ListedToken[]> {
  let username = opts.username;
  if (opts.actor !== undefined) {
    const actor = await getAccount(ctx, opts.actor);
    if (!mayListAllTokens(actor)) {
      if (username !== undefined && username !== actor.username) throw seesOnlyItsOwn(actor);
      username = actor.username;
    }
  }
  const accountId = username === undefined ? undefined : (await getAccount(ctx, username)).id;
  return listTokens(ctx, { ...opts, accountId });
}

/** A client address a token was used from, with the first and the last time it was seen. */
export interface TokenAddress {
  address: string;
  first_seen: string;
  last_seen: string;
}

/** `token show`: one token, its last address and the five addresses it was most recently used from. */
export type ShownToken = ListedToken & { addresses: TokenAddress[] };

const SHOWN_ADDRESSES = 5;

async function assertMaySee(ctx: Ctx, actorName: string | undefined, owner: string): Promise<void> {
  if (actorName === undefined) return;
  const actor = await getAccount(ctx, actorName);
  if (!mayListAllTokens(actor) && actor.username !== owner) throw seesOnlyItsOwn(actor);
}

export async function showTokenAs(ctx: Ctx, id: string, actorName: string | undefined): Promise<ShownToken> {
  const { getToken } = await import('./service.js');
  const row = await getToken(ctx, id);
  await assertMaySee(ctx, actorName, row.username);
  const addresses = await ctx
    .db('token_addresses')
    .where('token_id', row.id)
    .orderBy([{ column: 'last_seen_at', order: 'desc' }, { column: 'address' }])
    .limit(SHOWN_ADDRESSES)
    .select<TokenAddress[]>('address', 'first_seen_at as first_seen', 'last_seen_at as last_seen');
  return {
    ...toView(row, ctx.clock.now()),
    last_used_from: addresses[0]?.address ?? null,
    addresses,
  };
}

export async function lookupTokenAs(ctx: Ctx, value: string, actorName: string | undefined): Promise<TokenView> {
  // The value is checked against its hash: the service and the KDF, which a list never needs.
  const { findTokenByValue } = await import('./service.js');
  const row = await findTokenByValue(ctx, value);
  await assertMaySee(ctx, actorName, row.username);
  return toView(row, ctx.clock.now());
}

/** `account show`: one account and all its tokens. */
export async function showAccount(
  ctx: Ctx,
  username: string,
): Promise<{ username: string; role: Role; tokens: TokenView[] }> {
  const account = await getAccount(ctx, username);
  // The TOKEN objects of docs/cli.md, as account show has always printed them.
  const tokens = (await listTokens(ctx, { accountId: account.id, all: true })).map(
    ({ last_used_from: _from, ...token }) => token,
  );
  return { username: account.username, role: account.role, tokens };
}
