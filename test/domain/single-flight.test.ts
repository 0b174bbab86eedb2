// src/single-flight.ts: callers with the same key share one run while it is in flight; once it
// settles (resolved or rejected) the next caller starts afresh.
import { describe, expect, it } from 'vitest';
import { SingleFlight } from '../../src/single-flight.js';

describe('single flight', () => {
  it('shares one run per key while it runs, and starts a new one after it settled', async () => {
    const flights = new SingleFlight<string, number>();
    let runs = 0;
    let release: (n: number) => void = () => undefined;
    const make = () => {
      runs++;
      return new Promise<number>((done) => (release = done));
    };
    const a = flights.run('k', make);
    const b = flights.run('k', make);
    expect(runs).toBe(1);
    const other = flights.run('other', () => Promise.resolve(7));
    expect(runs).toBe(1);
    release(42);
    expect(await Promise.all([a, b, other])).toEqual([42, 42, 7]);
    const c = flights.run('k', make);
    expect(runs).toBe(2);
    release(43);
    expect(await c).toBe(43);
  });

  it('forgets a run that failed: every caller of it sees the error, the next one runs again', async () => {
    const flights = new SingleFlight<string, number>();
    const failing = flights.run('k', () => Promise.reject(new Error('boom')));
    const sharing = flights.run('k', () => Promise.resolve(1));
    await expect(failing).rejects.toThrow('boom');
    await expect(sharing).rejects.toThrow('boom');
    expect(await flights.run('k', () => Promise.resolve(2))).toBe(2);
  });
});
