// Tokens bound to client addresses (`token create --allow-from`): a token presented from an
// address outside its blocks is refused with 403, as if its header were not usable. The step
// runs right after the header is judged (app.ts), before the body is read and before the route's
// rule and the scope step: a token used from the wrong place is refused whatever it asks for, so a
// taken value teaches its holder nothing of the token's rights (a scope refusal would name them),
// an upload is not written for it, and every such use is seen, not only those within its scopes.
// The client address is the one the daemon judged (client-address.ts: behind trustProxy, the
// forwarded one).
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { addressAllowed } from '../domain/address-blocks.js';
import { recordForeignUse } from '../domain/foreign-uses.js';
import { redactSecrets } from '../errors.js';
import { httpError } from './errors.js';
import type { ApiMiddleware, Deps } from './types.js';

export const NOT_FROM_HERE = 'this token is not accepted from this address';

/** Token, address and day already logged and audited by this daemon: the log says it once a day. */
const SEEN_KEYS = 10_000;

export function refuseForeignAddress(deps: Deps, log: Logger): ApiMiddleware {
  const seen = new LRUCache<string, true>({ max: SEEN_KEYS });
  return async function allowFrom(ctx, next) {
    const principal = ctx.state.principal;
    if (principal?.allowFrom == null || addressAllowed(principal.allowFrom, ctx.request.ip)) return next();
    const address = ctx.request.ip;
    const key = `${principal.tokenId} ${address} ${deps.clock.now().toISOString().slice(0, 10)}`;
    if (!seen.has(key)) {
      seen.set(key, true);
      // The token's id and the address, never its value: what its owner needs to act on.
      log.warn(
        { request_id: ctx.state.requestId, token_id: principal.selector, account: principal.username, ip: address },
        'refused a token presented from an address outside its allow_from',
      );
      try {
        await recordForeignUse(deps, principal, address);
      } catch (err) {
        // The refusal stands; only its audit entry is missing (the warning above has it).
        const error = redactSecrets(err instanceof Error ? err.message : String(err));
        log.error({ request_id: ctx.state.requestId, error }, 'could not audit a refused token use');
      }
    }
    // Kept as the header's verdict: answered after the api_token rule, like any refused token,
    // and the body reader knows the request is refused (no upload kept).
    ctx.state.principal = null;
    ctx.state.authRefusal = 'address';
    ctx.state.refusal = { error: httpError(403, NOT_FROM_HERE), answerAt: 0 };
    await next();
  };
}
