// Tokens bound to client addresses (`--allow-from`): a use from elsewhere is answered 403 like a refused token,
// 429 past each client key's budget, and audited once per token, key and UTC day (at most NOTED_PER_DAY keys).
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { ForeignToken } from '../domain/tokens/authenticate.js';
import { FailureBudget } from '../domain/tokens/failure-budget.js';
import { NOTED_PER_DAY, recordForeignUse } from '../domain/foreign-uses.js';
import { redactSecrets } from '../errors.js';
import { atMostKeys } from '../lru-bound.js';
import { httpError } from './errors.js';
import type { ApiContext, ApiMiddleware, Deps } from './types.js';

export const NOT_FROM_HERE = 'this token is not accepted from this address';

/** Refused uses a client key may make of one token: a burst, then one a minute. */
const REFUSAL_BUDGET = { burst: 10, perMinute: 1, maxKeys: 10_000 };
/** Token, key and day entries remembered (each noted once). */
const SEEN_KEYS = 10_000;

export function refuseForeignAddress(deps: Deps, log: Logger): ApiMiddleware {
  const budget = new FailureBudget(REFUSAL_BUDGET, () => performance.now());
  const seen = new LRUCache<string, true>(atMostKeys(SEEN_KEYS));
  const notedToday = new LRUCache<string, number>(atMostKeys(SEEN_KEYS));

  async function note(ctx: ApiContext, token: ForeignToken, key: string): Promise<void> {
    const day = deps.clock.now().toISOString().slice(0, 10);
    const seenKey = `${token.tokenId} ${key} ${day}`;
    const dayKey = `${token.tokenId} ${day}`;
    const noted = notedToday.get(dayKey) ?? 0;
    if (seen.has(seenKey) || noted > NOTED_PER_DAY) return;
    seen.set(seenKey, true);
    notedToday.set(dayKey, noted + 1);
    if (noted === NOTED_PER_DAY) {
      log.warn(
        { request_id: ctx.state.requestId, token_id: token.selector, account: token.username },
        `refused uses of this token from ${NOTED_PER_DAY} client addresses today; more are only counted`,
      );
      return;
    }
    log.warn(
      { request_id: ctx.state.requestId, token_id: token.selector, account: token.username, ip: ctx.request.ip },
      'refused a token presented from an address outside its allow_from',
    );
    try {
      await recordForeignUse(deps, token, ctx.request.ip, key);
    } catch (err) {
      // The refusal stands; only its audit entry is missing (the warning above has it).
      const error = redactSecrets(err instanceof Error ? err.message : String(err));
      log.error({ request_id: ctx.state.requestId, error }, 'could not audit a refused token use');
    }
  }

  return async function allowFrom(ctx, next) {
    const token = ctx.state.foreignToken;
    const refusal = ctx.state.refusal;
    if (token && refusal) {
      const key = `${token.tokenId} ${ctx.state.client}`;
      if (budget.take(key)) {
        await note(ctx, token, ctx.state.client);
      } else {
        ctx.state.authRefusal = 'throttled';
        const retryAfter = String(budget.retryAfter(key));
        const text = 'too many refused uses of this token from this address; retry later';
        refusal.error = httpError(429, text, { 'Retry-After': retryAfter, Connection: 'close' });
      }
    }
    await next();
  };
}
