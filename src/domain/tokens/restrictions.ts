// What narrows a token beyond its account (docs/security.md, "Least privilege"): its scopes
// (../scopes.ts), the client addresses it is accepted from (`allow_from`, CIDR blocks) and its
// own request rate (`rate_limit`, rate-limit.ts). Each is a nullable column of `tokens` in one
// canonical text, NULL meaning what every token had before: every right, from anywhere, no rate.
// Here: the columns, as stored, as a principal carries them (rate-limit.ts reads the rate), read
// back and shown (the blocks themselves are read in ../address-blocks.ts, which the CLI's command
// tree does not load).
import { scopesColumn, shownScopes, storedScopes, type Scope } from '../scopes.js';
import { formatRateLimit, parseRateLimit, type RateLimit } from '../../rate-limit.js';

/** The three columns, as stored. */
export interface RestrictionColumns {
  scopes: string | null;
  allow_from: string | null;
  rate_limit: string | null;
}

/** The same, read: what a principal carries (null: not restricted). */
export interface Restrictions {
  scopes: readonly Scope[] | null;
  allowFrom: readonly string[] | null;
  rateLimit: RateLimit | null;
}

export const UNRESTRICTED: Restrictions = { scopes: null, allowFrom: null, rateLimit: null };

/** Written for `allow_from` to lift the binding (token update --allow-from any). */
export const ANYWHERE = 'any';

/** The columns to store for the given restrictions. */
export function restrictionColumns(r: Restrictions): RestrictionColumns {
  return {
    scopes: scopesColumn(r.scopes),
    allow_from: r.allowFrom === null ? null : r.allowFrom.join(','),
    rate_limit: r.rateLimit === null ? null : formatRateLimit(r.rateLimit),
  };
}

/**
 * The columns read back. Text that no longer reads (a row changed by hand) restricts more, not
 * less: an unreadable block admits no address; an unreadable rate is the least one.
 */
export function readRestrictions(row: RestrictionColumns): Restrictions {
  const { scopes = null, allow_from = null, rate_limit = null } = row; // absent: see queries.ts, tokenQuery
  return {
    scopes: storedScopes(scopes),
    allowFrom: allow_from === null ? null : allow_from.split(','),
    rateLimit: rate_limit === null ? null : (parseRateLimit(rate_limit) ?? { points: 1, per: 'hour' }),
  };
}

/** The restrictions as listings, the audit log and GET /api/token show them. */
export function shownRestrictions(row: RestrictionColumns): {
  scopes: string[];
  allow_from: string[] | null;
  rate_limit: string | null;
} {
  const { scopes = null, allow_from = null, rate_limit = null } = row;
  return {
    scopes: shownScopes(storedScopes(scopes)),
    allow_from: allow_from === null ? null : allow_from.split(','),
    rate_limit,
  };
}

/** One line for the audit log: `scopes=read,ai-usage allow_from=10.0.0.0/8 rate_limit=600/hour`. */
export function restrictionsText(row: RestrictionColumns): string {
  const shown = shownRestrictions(row);
  return (
    `scopes=${shown.scopes.join(',')} allow_from=${shown.allow_from?.join(',') ?? ANYWHERE} ` +
    `rate_limit=${shown.rate_limit ?? 'none'}`
  );
}
