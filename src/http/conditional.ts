// Conditional GET (RFC 9110 §13.1-13.2) for documents served with validators, and who may keep an answer
// (cacheControl): nothing meant for one token may reach another client from a cache.
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
 * Cache-Control (RFC 9111) on every answer: a token's answer is `private` (`no-store`, or `no-cache` with
 * validators), any other `no-cache`, so a revocation counts from the next request; `Vary: Authorization` on all.
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
