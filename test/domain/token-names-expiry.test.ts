// A token's name and its expiry date as the CLI takes them (names.ts, expiry.ts): what is
// accepted, what is refused and with which words, and the Token-Expiration header's instant.
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import { handoffExpiry, LATEST_EXPIRY, parseExpiry, tokenExpiration } from '../../src/domain/tokens/expiry.js';
import { checkTokenName, LEGACY_NAME } from '../../src/domain/tokens/names.js';

/** The refusal `run` throws: an `invalid` error (422 / exit 1), its message. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(isAppError(err) && err.kind).toBe('invalid');
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('a token name', () => {
  it('is kept trimmed, up to 100 characters', () => {
    expect(checkTokenName('  nightly ingest \t')).toBe('nightly ingest');
    expect(checkTokenName('x'.repeat(100))).toBe('x'.repeat(100));
    expect(checkTokenName(` ${'y'.repeat(100)} `)).toBe('y'.repeat(100));
    expect(LEGACY_NAME).toBe('Legacy API token');
  });

  it('is refused empty or blank, over 100 characters, or with what a terminal interprets', () => {
    expect(refusal(() => checkTokenName(''))).toBe('a token needs a name that says what it is for (--name)');
    expect(refusal(() => checkTokenName(' \t '))).toBe('a token needs a name that says what it is for (--name)');
    expect(refusal(() => checkTokenName('x'.repeat(101)))).toBe('a token name is at most 100 characters');
    const message = refusal(() => checkTokenName('red\u001b[31m'));
    expect(message).toMatch(
      /^a token name may not contain control characters or invisible formatting characters \(found /,
    );
    expect(message).not.toContain('\u001b');
    expect(message).toContain('"red');
    expect(refusal(() => checkTokenName('a\u200bb'))).toMatch(/invisible formatting characters/);
  });
});

describe('an expiry date', () => {
  const now = new Date('2026-11-28T23:59:59.999Z');

  it('runs through the end of its UTC day: the first refused instant is the next midnight', () => {
    expect(parseExpiry('2026-11-28', now)).toEqual({ expires: '2026-11-28', expiresAt: '2026-11-29T00:00:00.000Z' });
    expect(parseExpiry('2027-02-28', now)).toEqual({ expires: '2027-02-28', expiresAt: '2027-03-01T00:00:00.000Z' });
    expect(parseExpiry(LATEST_EXPIRY, now)).toEqual({ expires: '2038-01-18', expiresAt: '2038-01-19T00:00:00.000Z' });
  });

  it('is refused in the past, after 2038-01-18, or not a calendar date, naming what was given', () => {
    expect(refusal(() => parseExpiry('2026-11-27', now))).toBe(
      '--expires 2026-11-27 is in the past (today is 2026-11-28 UTC)',
    );
    expect(refusal(() => parseExpiry('2038-01-19', now))).toBe(
      '--expires 2038-01-19 is too late: the latest allowed date is 2038-01-18',
    );
    for (const text of ['2027-02-29', 'tomorrow', '2027-1-01', '']) {
      expect(refusal(() => parseExpiry(text, now))).toBe(
        `--expires must be a calendar date YYYY-MM-DD (UTC), got "${text}"`,
      );
    }
  });

  it('of a handoff is 12 hours on', () => {
    expect(handoffExpiry(new Date('2026-11-28T10:00:00.250Z'))).toBe('2026-11-28T22:00:00.250Z');
  });

  it('is sent as Token-Expiration to the second, a fraction rounded up', () => {
    expect(tokenExpiration(null)).toBeNull();
    expect(tokenExpiration('not a date')).toBeNull();
    expect(tokenExpiration('2026-11-29T00:00:00.000Z')).toBe('2026-11-29T00:00:00Z');
    expect(tokenExpiration('2026-11-28T22:00:00.250Z')).toBe('2026-11-28T22:00:01Z');
    expect(tokenExpiration('2026-11-28T22:00:00.999Z')).toBe('2026-11-28T22:00:01Z');
  });
});
