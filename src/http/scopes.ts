// Scoped tokens (`token create --scope`): a token's rights are its account's rights narrowed to
// its scopes. The route's rule (enforceAccess) is judged first, so a role too low is answered as
// before; this step then refuses a request whose route needs a scope the token lacks, with 403
// and RFC 6750 §3's `insufficient_scope`, naming the scope needed. Each route's scope is a
// column of the access matrix (RouteSpec.scope, domain/access.ts), never read from the path.
import { decide, ruleFor, scopeFor } from '../domain/access.js';
import type { Scope } from '../domain/scopes.js';
import { httpError, REALM } from './errors.js';
import type { ApiContext, ApiNext } from './types.js';

const withIds = (ctx: ApiContext) => ctx.query.ids !== undefined;

/**
 * The scope this request needs and its token lacks; null when nothing is missing: no token, a
 * token with every right of its account, an open route, or a request the settings open to
 * anyone without a token (it is served to any token as it is to anyone).
 */
export function missingScope(ctx: ApiContext): Scope | null {
  const { route, principal } = ctx.state;
  if (!route || principal?.scopes == null) return null;
  const needed = scopeFor(route, withIds(ctx));
  if (needed === null || principal.scopes.includes(needed)) return null;
  return decide(ruleFor(route, withIds(ctx)), ctx.method, ctx.state.settings, null) === 'allow' ? null : needed;
}

/** The step, after the route's rule (app.ts). */
export async function enforceScopes(ctx: ApiContext, next: ApiNext): Promise<void> {
  const missing = missingScope(ctx);
  if (missing === null) return next();
  ctx.state.authRefusal = 'scope';
  const held = ctx.state.principal?.scopes?.join(', ') ?? '';
  throw httpError(403, `this request needs the scope ${missing}; this token's scopes are ${held}`, {
    'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${missing}"`,
  });
}
