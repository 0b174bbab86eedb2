// Steps 1-3 of docs/http-api.md as steps of the request pipeline (app.ts), in that order: api_token
// anywhere → 401; the Authorization header → 401/403; the route's access rule → 401/403.
// Validation and handlers come after all three.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { decide, ruleFor } from '../domain/access.js';
import type { AccessState } from '../domain/access-state.js';
import type { Authenticator, AuthResult, Refusal } from '../domain/tokens/authenticate.js';
import { NOT_FROM_HERE } from './allow-from.js';
import { API_TOKEN_MESSAGE, isApiTokenKey, queryHasApiToken, redactQuery } from './api-token.js';
import { bodyKeys } from './body.js';
import { httpError, REALM, unauthorized, type HttpError } from './errors.js';
import type { ApiContext, ApiMiddleware, ApiState, ApiNext } from './types.js';

/** The first instant at which the request's token is refused (RFC 3339, UTC); see README. */
const TOKEN_EXPIRATION = 'Token-Expiration';

export function refuseApiTokenInQuery(log: Logger): ApiMiddleware {
  return async function apiTokenInQuery(ctx, next) {
    if (queryHasApiToken(ctx.querystring)) refuseApiToken(ctx, log, 'query');
    await next();
  };
}

export function refuseApiTokenInBody(log: Logger): ApiMiddleware {
  return async function apiTokenInBody(ctx, next) {
    if (bodyKeys(ctx.state.body).some(isApiTokenKey)) refuseApiToken(ctx, log, 'body');
    await next();
  };
}

function refuseApiToken(ctx: ApiContext, log: Logger, where: 'query' | 'body'): never {
  ctx.state.authRefusal = 'api_token';
  ctx.remove(TOKEN_EXPIRATION); // the request is refused, whatever its header said
  log.warn(
    {
      request_id: ctx.state.requestId,
      method: ctx.method,
      path: ctx.querystring ? `${ctx.path}?${redactQuery(ctx.querystring)}` : ctx.path,
      where,
      ip: ctx.ip,
      user_agent: ctx.get('User-Agent') || null,
    },
    'refused a request carrying the api_token parameter',
  );
  throw unauthorized(API_TOKEN_MESSAGE, true); // a token was presented, and is refused
}

const REFUSAL_TEXT: Record<Refusal, string> = {
  malformed: 'the token is not valid',
  unknown: 'the token is not valid',
  mismatch: 'the token is not valid',
  throttled: 'too many failed token verifications from this address; retry later',
  busy: 'too many token verifications at once; retry later',
  revoked: 'the token has been revoked',
  expired: 'the token has expired',
  blocked: 'the account is blocked',
  address: NOT_FROM_HERE,
};

/**
 * All refusals of a presented token but a blocked account's close the connection: a forger must
 * come back through the connection limits, and what it pipelined behind is dropped unread.
 */
function refusalFor(reason: Refusal, retryAfterSeconds: number | undefined): HttpError {
  const text = REFUSAL_TEXT[reason];
  if (reason === 'blocked') return httpError(403, text);
  const close = { Connection: 'close' };
  if (reason === 'address') return httpError(403, text, close);
  if (reason === 'throttled' || reason === 'busy')
    return httpError(reason === 'busy' ? 503 : 429, text, { ...close, 'Retry-After': String(retryAfterSeconds ?? 1) });
  return httpError(401, text, { ...unauthorized(text, true).headers, ...close });
}

/**
 * Step 2, judged before the body is read: a present but unusable Authorization header is refused,
 * also on open endpoints. The refusal is kept, not answered, so an api_token in the body still
 * gets its own 401 first (step 1), and the body reader does not write a refused request's uploads.
 */
export function judgeAuthorization(access: AccessState, authenticator: Authenticator): ApiMiddleware {
  return async function judgeHeader(ctx, next) {
    const judgedAt = performance.now();
    // The generation is read before the token: what the token check then reads is at least as
    // fresh as it, so a request that arrives after a revocation sees the revocation.
    const snapshot = await access.current();
    ctx.state.settings = snapshot.settings;
    ctx.state.principal = null;
    ctx.state.refusal = null;
    const value = bearerToken(ctx);
    if (value !== null)
      keepResult(
        ctx,
        await authenticator.authenticate(value, snapshot.generation, ctx.state.client, ctx.request.ip),
        judgedAt,
      );
    await next();
  };

  /** The token of a usable Bearer header; null without a header, or when the header is refused. */
  function bearerToken(ctx: ApiContext): string | null {
    const header = ctx.req.headers.authorization;
    if (header === undefined) return null;
    if (repeatsAuthorization(ctx.req.rawHeaders))
      return refuseHeader(ctx, httpError(400, 'more than one Authorization header', { Connection: 'close' }));
    // RFC 7235: the scheme is case-insensitive; RFC 6750: exactly one token after one space run.
    const match = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?: +([^ ]+))? *$/.exec(header);
    const value = match?.[2];
    if (!match || match[1]?.toLowerCase() !== 'bearer')
      return refuseHeader(ctx, unauthorized('only Authorization: Bearer <token> is accepted', false));
    if (!value) return refuseHeader(ctx, unauthorized('the Authorization header carries no token', false));
    return value;
  }

  /** A header that is no usable Bearer header: refused at once, without a pause. */
  function refuseHeader(ctx: ApiContext, error: HttpError): null {
    ctx.state.authRefusal = 'header';
    ctx.state.refusal = { error, answerAt: 0 };
    return null;
  }

  function keepResult(ctx: ApiContext, result: AuthResult, judgedAt: number): void {
    if (result.ok) {
      ctx.state.principal = result.principal;
      ctx.state.tokenId = result.principal.selector;
      // On every answer to this request, errors included: a script sees when its token ends.
      if (result.principal.expiration !== null) ctx.set(TOKEN_EXPIRATION, result.principal.expiration);
    } else {
      if (result.selector) ctx.state.tokenId = result.selector;
      if (result.token) ctx.state.foreignToken = result.token;
      ctx.state.authRefusal = result.reason;
      ctx.state.refusal = {
        error: refusalFor(result.reason, result.retryAfterSeconds),
        answerAt: result.reason === 'blocked' ? 0 : judgedAt,
      };
    }
  }
}

/** Node keeps the first Authorization header; a proxy or log that reads the last judges another. */
function repeatsAuthorization(rawHeaders: string[]): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === 'authorization') seen++;
  return seen > 1;
}

/** Step 2, answered once step 1 has looked at the body. */
export function answerAuthorization(failedAuthDelayMs: number): ApiMiddleware {
  return async function answerHeader(ctx, next) {
    if (ctx.state.refusal) await answerRefusal(ctx.state.refusal, failedAuthDelayMs);
    await next();
  };
}

/**
 * A refused token is answered at a fixed deadline after it was judged, whatever the refusal cost
 * (timing says nothing about the id), with a pause that costs no CPU: a client flooding with forged
 * values gets one answer per connection per pause, and the event loop stays free for valid tokens.
 */
async function answerRefusal(refusal: NonNullable<ApiState['refusal']>, failedAuthDelayMs: number): Promise<never> {
  if (refusal.answerAt > 0 && failedAuthDelayMs > 0) {
    const wait = refusal.answerAt + failedAuthDelayMs - performance.now();
    if (wait > 0) await delay(wait);
  }
  throw refusal.error;
}

/** The route's rule for this request (with `ids`, some routes have a stricter one). */
function ruleOf(ctx: ApiContext, route: NonNullable<ApiContext['state']['route']>) {
  return ruleFor(route, ctx.query.ids !== undefined);
}

/** Whether the request is refused whatever its body says: by its header, path, method or rule. */
export function willBeRefused(ctx: ApiContext): boolean {
  const route = ctx.state.route;
  if (ctx.state.refusal !== null || !route) return true;
  return decide(ruleOf(ctx, route), ctx.method, ctx.state.settings, ctx.state.principal?.role ?? null) !== 'allow';
}

/** Step 3: the route's rule from the access matrix. Runs after 404/405 are settled. */
export async function enforceAccess(ctx: ApiContext, next: ApiNext): Promise<void> {
  const route = ctx.state.route;
  if (!route) return next();
  const rule = ruleOf(ctx, route);
  const decision = decide(rule, ctx.method, ctx.state.settings, ctx.state.principal?.role ?? null);
  if (decision === 'unauthenticated') {
    ctx.state.authRefusal = 'missing';
    throw unauthorized('authentication required: send Authorization: Bearer <token>', false);
  }
  if (decision === 'forbidden') {
    // RFC 6750 §3.1: a valid token whose rights are too low is `insufficient_scope`. Not for a
    // blocked account (answered in step 2; here only as a safety net): a new token won't help.
    const blocked = ctx.state.principal?.role === 'blocked';
    throw httpError(
      403,
      rule === 'editor' ? 'this endpoint needs the role editor or higher' : 'access denied',
      blocked ? {} : { 'WWW-Authenticate': `${REALM}, error="insufficient_scope"` },
    );
  }
  await next();
}
