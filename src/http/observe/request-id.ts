// Every request gets an id, sent in `X-Request-Id` and logged, to find an answer a user reports. A
// client's own id is taken only from a trusted proxy (which made or checked it) and only when short
// and plain: anyone else could write what they like into the log, or pass two requests off as one.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TrustFn } from '../client-address.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Ids a proxy may pass on: up to 64 letters, digits and `._:-` (UUIDs, ULIDs, nginx's hex ids). */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,64}$/;

// Random bytes drawn 9 at a time from a larger buffer, refilled when spent: one call into the
// CSPRNG per 455 requests instead of one per request.
const POOL_SIZE = 9 * 455;
let pool = Buffer.alloc(0);
let offset = POOL_SIZE; // filled on first use, not at import

/** 12 random URL-safe characters (72 bits): unique enough to find one request in years of logs. */
export function newRequestId(): string {
  if (offset + 9 > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + 9);
  offset += 9;
  return id;
}

/** The proxy's id when the peer is a trusted proxy and the id is well-formed, else a new one. */
export function requestIdFor(req: IncomingMessage, trust: TrustFn): string {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && WELL_FORMED.test(given) && trust(req.socket.remoteAddress ?? '', 0)) return given;
  return newRequestId();
}
