// What narrows a token (src/domain/tokens/restrictions.ts): its scopes, address blocks and rate as
// the three columns store them, read back as a principal carries them, and shown in listings and
// the audit log. Pure functions; the CLI and HTTP sides are token-scopes.test.ts and
// test/auth/token-scopes.test.ts, token-addresses.test.ts.
import { describe, expect, it } from 'vitest';
import {
  ANYWHERE,
  readRestrictions,
  restrictionColumns,
  restrictionsText,
  shownRestrictions,
  UNRESTRICTED,
  type RestrictionColumns,
} from '../../src/domain/tokens/restrictions.js';

const NONE: RestrictionColumns = { scopes: null, allow_from: null, rate_limit: null };
const EVERY: RestrictionColumns = {
  scopes: 'read,ai-usage',
  allow_from: '10.0.0.0/8,192.0.2.7/32',
  rate_limit: '600/hour',
};

describe('the columns of a token', () => {
  it('are NULL for what does not narrow it, the canonical text for what does', () => {
    expect(restrictionColumns(UNRESTRICTED)).toEqual(NONE);
    expect(
      restrictionColumns({
        scopes: ['read', 'ai-usage'],
        allowFrom: ['10.0.0.0/8', '192.0.2.7/32'],
        rateLimit: { points: 600, per: 'hour' },
      }),
    ).toEqual(EVERY);
    expect(restrictionColumns({ scopes: [], allowFrom: null, rateLimit: { points: 1, per: 'minute' } })).toEqual({
      scopes: '',
      allow_from: null,
      rate_limit: '1/minute',
    });
  });

  it('read back as they were written', () => {
    expect(readRestrictions(NONE)).toEqual(UNRESTRICTED);
    expect(readRestrictions(EVERY)).toEqual({
      scopes: ['read', 'ai-usage'],
      allowFrom: ['10.0.0.0/8', '192.0.2.7/32'],
      rateLimit: { points: 600, per: 'hour' },
    });
    expect(readRestrictions(restrictionColumns(readRestrictions(EVERY)))).toEqual(readRestrictions(EVERY));
  });

  it('missing from a row (a migration rolled back under a running daemon) read as no restriction', () => {
    expect(readRestrictions({} as RestrictionColumns)).toEqual(UNRESTRICTED);
    expect(shownRestrictions({} as RestrictionColumns)).toEqual({ scopes: ['*'], allow_from: null, rate_limit: null });
  });

  it('that no longer read restrict more, not less: an unknown scope grants nothing, an unreadable rate is 1/hour', () => {
    expect(readRestrictions({ scopes: 'read,teleport', allow_from: null, rate_limit: 'lots' })).toEqual({
      scopes: ['read'],
      allowFrom: null,
      rateLimit: { points: 1, per: 'hour' },
    });
    expect(readRestrictions({ ...NONE, rate_limit: '0/minute' }).rateLimit).toEqual({ points: 1, per: 'hour' });
  });
});

describe('the restrictions shown', () => {
  it('in listings and GET /api/token: ["*"] for every right, the blocks as a list, the rate as stored', () => {
    expect(shownRestrictions(NONE)).toEqual({ scopes: ['*'], allow_from: null, rate_limit: null });
    expect(shownRestrictions(EVERY)).toEqual({
      scopes: ['read', 'ai-usage'],
      allow_from: ['10.0.0.0/8', '192.0.2.7/32'],
      rate_limit: '600/hour',
    });
  });

  it('in the audit log: one line, "any" for every address and "none" for no rate', () => {
    expect(ANYWHERE).toBe('any');
    expect(restrictionsText(NONE)).toBe('scopes=* allow_from=any rate_limit=none');
    expect(restrictionsText(EVERY)).toBe('scopes=read,ai-usage allow_from=10.0.0.0/8,192.0.2.7/32 rate_limit=600/hour');
  });
});
