// Conditional GET (RFC 9110 §13.1-13.2), one rule for every document the API serves with
// validators (BEACON dumps, TEI exports): If-None-Match decides when present (weak comparison:
// `W/"x"` matches `"x"`; `*` matches any); only without it does If-Modified-Since count, against
// Last-Modified at whole seconds, as HTTP dates have them.
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
