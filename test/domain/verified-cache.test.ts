// The verified-token cache (src/domain/tokens/verified-cache.ts): keyed by a hash of the value,
// never the value; bounded, the least recently used entry dropped first.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cacheKey, VerifiedTokens, type VerifiedEntry } from '../../src/domain/tokens/verified-cache.js';

const entry = (id: number): VerifiedEntry => ({
  generation: '1',
  row: {
    id,
    selector: `sel${id}`.padEnd(8, '0'),
    account_id: 1,
    username: 'u',
    role: 'user',
    secret_hash: 'h',
    secret_check: null,
    expires_at: null,
    revoked_at: null,
    last_used_at: null,
    scopes: null,
    allow_from: null,
    rate_limit: null,
  },
});

describe('the verified-token cache', () => {
  it('keys an entry by the SHA-256 of the value, which does not contain the value', () => {
    const value = `arc_${'a'.repeat(54)}`;
    const key = cacheKey(value);
    expect(key).toBe(createHash('sha256').update(value).digest('base64'));
    expect(key).not.toContain('aaaa');
    expect(cacheKey(`${value.slice(0, -1)}b`)).not.toBe(key);
  });

  it('holds at most its size, dropping the entry used longest ago', () => {
    const cache = new VerifiedTokens(2);
    cache.set('a', entry(1));
    cache.set('b', entry(2));
    expect(cache.get('a')?.row.id).toBe(1); // now the most recently used
    cache.set('c', entry(3));
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.row.id).toBe(1);
    expect(cache.get('c')?.row.id).toBe(3);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(1);
  });
});
