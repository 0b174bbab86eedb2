// A request rate as an admin writes it (`--rate-limit`, `limits.tokenRate`): what is read, what
// is refused, and how it is written back (the stored and shown form).
import { describe, expect, it } from 'vitest';
import { formatRateLimit, parseRateLimit, RATE_LIMIT_FORM, windowSeconds } from '../../src/rate-limit.js';

describe('a request rate', () => {
  it('reads N/minute and N/hour, from 1 to 1,000,000', () => {
    expect(parseRateLimit('600/hour')).toEqual({ points: 600, per: 'hour' });
    expect(parseRateLimit('1/minute')).toEqual({ points: 1, per: 'minute' });
    expect(parseRateLimit('1000000/minute')).toEqual({ points: 1_000_000, per: 'minute' });
  });

  it('refuses anything else', () => {
    for (const text of [
      '',
      '0/hour',
      '1000001/hour',
      '10000000/hour',
      '06/hour',
      '-5/hour',
      '5/day',
      '5/Hour',
      '5 /hour',
      ' 5/hour',
      '5/hour ',
      '5/hours',
      'x5/hour',
      '5/hourx',
      '5',
      '/hour',
      '1.5/minute',
    ])
      expect(parseRateLimit(text), text).toBeNull();
  });

  it('writes back what it read, with its window in seconds', () => {
    for (const text of ['600/hour', '1/minute', '1000000/minute']) {
      const rate = parseRateLimit(text)!;
      expect(formatRateLimit(rate)).toBe(text);
    }
    expect(windowSeconds({ points: 5, per: 'minute' })).toBe(60);
    expect(windowSeconds({ points: 5, per: 'hour' })).toBe(3600);
  });

  it('names the form and the bounds in its refusal', () => {
    expect(RATE_LIMIT_FORM).toBe('a rate limit is written N/minute or N/hour, with N from 1 to 1,000,000');
  });
});
