// CORS and JSONP for the reconciliation services OpenRefine calls from its page (README, "CORS"): `*` without
// credentials (tokens never travel in cookies); a preflight is answered before authentication.
import { invalid } from '../errors.js';
import { hasBody } from './body.js';
import type { ApiContext, ApiNext } from './types.js';

/** Chrome caps at 7200 s, Firefox at 86400 s: a browser asks once per two hours and path. */
const MAX_AGE_SECONDS = 7200;
/** What a page may read beyond the safelisted headers. */
const EXPOSED = 'WWW-Authenticate, Retry-After, Allow, Token-Expiration, RateLimit, RateLimit-Policy';

/** The methods the reconciliation protocol uses: what a preflight of a path that is no route allows. */
const PROTOCOL_METHODS = 'GET, HEAD, POST';

/** Run after the route is resolved, before anything can refuse the request. */
export async function corsHeaders(ctx: ApiContext, next: ApiNext): Promise<void> {
  if (ctx.state.crossOrigin) {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Expose-Headers', EXPOSED);
  }
  await next();
}

/** Run after the api_token check and before authentication: answers preflights. */
export async function corsPreflight(ctx: ApiContext, next: ApiNext): Promise<void> {
  const isPreflight =
    ctx.method === 'OPTIONS' && ctx.get('Origin') !== '' && ctx.get('Access-Control-Request-Method') !== '';
  if (!isPreflight || !ctx.state.crossOrigin) return next();
  ctx.status = 204;
  ctx.set({
    'Access-Control-Allow-Methods': ctx.state.allowed.length > 0 ? ctx.state.allowed.join(', ') : PROTOCOL_METHODS,
    'Access-Control-Allow-Headers': 'Authorization, Content-Type',
    'Access-Control-Max-Age': String(MAX_AGE_SECONDS),
  });
  // A preflight has no body; one sent anyway is not read, so the connection is not reused.
  if (hasBody(ctx)) ctx.set('Connection', 'close');
}

/** A JSONP callback: a JavaScript name or dotted path (`jQuery3710_17`, `cb.done`), 64 characters at most. */
const CALLBACK_RE = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;

/**
 * Answers `value` as JSON, or — for a GET or HEAD with `callback` — as JSONP:
 * `/**\/callback(json);` typed `application/javascript`. The comment in front keeps the first
 * bytes from being read as anything but script; U+2028/U+2029 are escaped for old parsers.
 */
export function answerJson(ctx: ApiContext, value: unknown): void {
  const callback = ctx.method === 'GET' || ctx.method === 'HEAD' ? ctx.query.callback : undefined;
  if (callback === undefined) {
    ctx.body = value;
    return;
  }
  if (typeof callback !== 'string' || callback.length > 64 || !CALLBACK_RE.test(callback)) {
    throw invalid('invalid JSONP callback', {
      callback: 'must be given once, a JavaScript name such as jQuery123_456 (at most 64 characters)',
    });
  }
  const json = JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = 'application/javascript; charset=utf-8';
  ctx.body = `/**/${callback}(${json});`;
}
