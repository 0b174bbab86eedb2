// Conditional GET (RFC 9110 §13.1-13.2), one rule for every document the API serves with
// validators (BEACON dumps, TEI exports): If-None-Match decides when present (weak comparison:
// `W/"x"` matches `"x"`; `*` matches any); only without it does If-Modified-Since count, against
// Last-Modified at whole seconds, as HTTP dates have them. And who may keep an answer at all
// (cacheControl, on every answer): nothing meant for one token may reach another client from a cache.
import type { ApiContext } from './types.js';

export const floorSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

/** Whether an If-None-Match header names `etag` (a quoted strong tag), or is `*`. */
export function ifNoneMatchHits(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  for (const m of header.matchAll(/(?:W\/)?("[\x21\x23-\x7E\x80-\xFF]*")/g)) if (m[1] === etag) return true;
  return false;
}

/** Whether a GET or HEAD can be answered 304; `lastModified` null: the date is not to be relied on. */
export function notModified(ctx: ApiContext, etag: string, lastModified: Date | null): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const inm = ctx.get('If-None-Match');
  if (inm !== '') return ifNoneMatchHits(inm, etag);
  const ims = ctx.get('If-Modified-Since');
  if (ims === '' || lastModified === null) return false;
  const since = Date.parse(ims);
  if (Number.isNaN(since) || Number.isNaN(lastModified.getTime())) return false; // unreadable: ignored (§13.1.3)
  return floorSecond(lastModified.getTime()) <= since;
}

/**
 * Who may keep an answer (RFC 9111), set on every answer once it is made, errors included.
 * - A request with an Authorization header is answered for its token: `private` (no shared cache,
 *   such as nginx's proxy_cache, may store it, so it never reaches another client) and `no-store`,
 *   or `no-cache` for documents with validators (TEI exports, BEACON dumps: the client's own cache
 *   may keep them and revalidate with If-None-Match).
 * - Any other answer is public: `no-cache`, which lets a cache store it but never reuse it without
 *   asking the daemon again. Records, settings and tokens change at any moment, and a revoked
 *   token or `public_access` turned off must count from the next request, which a stored answer
 *   served without asking would defeat. Answers that set their own (`no-store`) keep it.
 * - `Vary: Authorization` on all: the same URL is answered differently with and without a token.
 *   Nothing depends on `Origin` (CORS answers `*` to every origin), so nothing varies on it.
 */
export function cacheControl(ctx: ApiContext): void {
  const given = String(ctx.response.get('Cache-Control') ?? '');
  if (ctx.get('Authorization') !== '') {
    ctx.set('Cache-Control', given === 'no-cache' ? 'private, no-cache' : 'private, no-store');
  } else if (given === '') {
    ctx.set('Cache-Control', 'no-cache');
  }
  ctx.vary('Authorization');
}
