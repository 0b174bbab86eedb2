// A request rate, as an admin writes it (`--rate-limit 600/hour`, `limits.tokenRate`) and as the
// RateLimit header fields state it: so many requests per fixed window of a minute or an hour.
export interface RateLimit {
  /** Requests admitted per window. */
  points: number;
  per: 'minute' | 'hour';
}

export const RATE_LIMIT_PATTERN = /^([1-9][0-9]{0,6})\/(minute|hour)$/;
const MAX_POINTS = 1_000_000;

/** The window's length in seconds. */
export const windowSeconds = (rate: RateLimit): number => (rate.per === 'minute' ? 60 : 3600);

/** What a refusal of a malformed rate says; the CLI (a usage error) and the config file (a config error) each wrap it.
 * The bound is written out: `toLocaleString` at load would start ICU's number formatting in every
 * command that loads this module. */
export const RATE_LIMIT_FORM = 'a rate limit is written N/minute or N/hour, with N from 1 to 1,000,000';

/** `600/hour` → { points: 600, per: 'hour' }; null for anything else. */
export function parseRateLimit(text: string): RateLimit | null {
  const match = RATE_LIMIT_PATTERN.exec(text);
  const points = match ? Number(match[1]) : 0;
  if (!match || points > MAX_POINTS) return null;
  return { points, per: match[2] as RateLimit['per'] };
}

export const formatRateLimit = (rate: RateLimit): string => `${rate.points}/${rate.per}`;
