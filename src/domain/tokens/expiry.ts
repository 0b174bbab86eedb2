// Expiry dates (docs/cli.md#token-lifetimes): a UTC calendar date D, accepted through the end of D, refused from
// D+1 00:00:00Z. Today or later, at most 2038-01-18 (the source document's limit).
import { invalid } from '../../errors.js';
import { utcDate } from '../../clock.js';
import { addDays, parseDate } from '../dates.js';

export const LATEST_EXPIRY = '2038-01-18';
const HANDOFF_HOURS = 12;

export interface Expiry {
  expires: string;
  /** The first instant at which the token is refused. */
  expiresAt: string;
}

export function parseExpiry(text: string, now: Date): Expiry {
  const day = parseDate(text);
  if (!day) throw invalid(`--expires must be a calendar date YYYY-MM-DD (UTC), got "${text}"`);
  const today = utcDate(now);
  if (text < today) throw invalid(`--expires ${text} is in the past (today is ${today} UTC)`);
  if (text > LATEST_EXPIRY) throw invalid(`--expires ${text} is too late: the latest allowed date is ${LATEST_EXPIRY}`);
  return { expires: text, expiresAt: addDays(day, 1).toISOString() };
}

export function handoffExpiry(now: Date): string {
  return new Date(now.getTime() + HANDOFF_HOURS * 3_600_000).toISOString();
}

/**
 * The Token-Expiration header: the first refused instant, RFC 3339 in UTC to the second (a handoff
 * token's millisecond end is rounded up to the next second, when it is surely refused).
 */
export function tokenExpiration(expiresAt: string | null): string | null {
  if (expiresAt === null) return null;
  const ms = Date.parse(expiresAt);
  if (Number.isNaN(ms)) return null;
  return `${new Date(Math.ceil(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}
