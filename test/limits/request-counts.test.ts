// The in-memory request counter (src/db/request-counts.ts: SQLite, or PostgreSQL unreachable):
// fixed windows from a key's first request, and a bounded table: past its cap the key idle
// longest is forgotten, and its next request starts a fresh window.
import { describe, expect, it } from 'vitest';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { memoryCounter } from '../../src/db/request-counts.js';

const spec = { prefix: 'test', points: 2, seconds: 60 };

async function admitted(counter: ReturnType<typeof memoryCounter>, key: string): Promise<boolean> {
  try {
    const res = await counter.consume(key);
    expect(res).toBeInstanceOf(RateLimiterRes);
    return true;
  } catch (err) {
    expect(err).toBeInstanceOf(RateLimiterRes);
    return false;
  }
}

describe('the in-memory request counter', () => {
  it('admits `points` requests a window per key, answering what is left and when the window ends', async () => {
    const counter = memoryCounter(spec, 10);
    const first = await counter.consume('a');
    expect(first.remainingPoints).toBe(1);
    expect(first.msBeforeNext).toBeGreaterThan(59_000);
    expect(first.msBeforeNext).toBeLessThanOrEqual(60_000);
    expect((await counter.consume('a')).remainingPoints).toBe(0);
    await expect(counter.consume('a')).rejects.toMatchObject({ remainingPoints: 0 });
    // Another key counts apart.
    expect(await admitted(counter, 'b')).toBe(true);
  });

  it('holds at most its cap of keys: the one idle longest is forgotten first', async () => {
    const counter = memoryCounter(spec, 3);
    for (let i = 0; i < 2; i++) expect(await admitted(counter, 'spent')).toBe(true);
    expect(await admitted(counter, 'spent')).toBe(false);
    for (let i = 0; i < 2; i++) expect(await admitted(counter, 'recent')).toBe(true);
    // Two new keys fill the table: 'spent', idle longest, goes; 'recent' stays.
    expect(await admitted(counter, 'x')).toBe(true);
    expect(await admitted(counter, 'y')).toBe(true);
    expect(await admitted(counter, 'recent')).toBe(false);
    expect(await admitted(counter, 'spent')).toBe(true);
  });
});
