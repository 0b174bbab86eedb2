// Scoped tokens: after the route's rule, a request whose route needs a scope the token lacks is refused with
// 403 `insufficient_scope` (RFC 6750 §3). Each route's scope is a column of domain/access.ts.
import { decide, ruleFor, scopeFor } from '../domain/access.js';
import type { Scope } from '../domain/scopes.js';
import { httpError, REALM } from './errors.js';
import type { ApiContext, ApiNext } from './types.js';

const withIds = (ctx: ApiContext) => ctx.query.ids !== undefined;

/** The scope this request needs and its token lacks, or null (no token, an unscoped token, an open route). */
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
