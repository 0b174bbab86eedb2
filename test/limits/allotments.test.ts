// Shared rate limits counted against allotments (issue 45; docs/http-api.md, "Rate limits"): each
// PostgreSQL daemon takes a slice of a window (limit / 20, at least 1) from rate_limits, admits
// from it in memory and gives back what it did not spend. Never more than the limit in a window;
// the first 429 comes after at least limit − (N − 1)(slice − 1) admitted with N daemons.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Reply } from '../helpers/api.js';
import { createAccounts, createSandbox, createToken, IS_PG, withSandboxDb, type Sandbox } from '../helpers/cli.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/until.js';

let box: Sandbox;
let a: RunningDaemon;
let b: RunningDaemon;

const apiA = client(() => a);
const apiB = client(() => b);

/** A token of its own limited to `points`/hour (hour-long windows: a test never straddles an end). */
const limitedToken = async (name: string, points: number) =>
  (await createToken(box, 'reader', name, 'root', ['--rate-limit', `${points}/hour`])).token;

/** The RateLimit field's r and t; a 429 also carries Retry-After, the window's end (at least 1 s). */
function fields(r: Reply): { left: number; reset: number } {
  const m = /^"token";r=(\d+);t=(\d+)$/.exec(r.headers.get('ratelimit') ?? '');
  expect(m, `RateLimit: ${r.headers.get('ratelimit')}`).not.toBeNull();
  const [left, reset] = [Number(m?.[1]), Number(m?.[2])];
  expect(reset).toBeLessThanOrEqual(3600);
  if (r.status === 429) {
    expect(left).toBe(0);
    expect(r.headers.get('retry-after')).toBe(String(Math.max(1, reset)));
  }
  return { left, reset };
}

/** Requests of `token` to `api` one after the other until the first 429: how many were admitted. */
async function admittedUntilRefused(api: ReturnType<typeof client>, token: string, limit: number): Promise<number> {
  for (let n = 0; n <= limit; n++) {
    const r = await api.get('/api/objects', token);
    fields(r);
    if (r.status === 429) return n;
    expect(r.status).toBe(200);
  }
  throw new Error(`more than ${limit} admitted`);
}

/** archivectl_rate_limit_queries_total of a daemon: its statements on the shared counts. */
async function queries(d: RunningDaemon): Promise<number> {
  const text = await (await d.fetch('/metrics')).text();
  return Number(/^archivectl_rate_limit_queries_total (\S+)$/m.exec(text)?.[1]);
}

describe.skipIf(!IS_PG)('allotments of a limit shared by PostgreSQL daemons (SQLite counts in memory)', () => {
  beforeAll(async () => {
    box = await createSandbox();
    await createAccounts(box, { root: 'superuser', reader: 'user' });
    [a, b] = await Promise.all([startDaemon(box), startDaemon(box)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await box?.cleanup();
  });

  it('admits at most the limit, and at least its documented bound, of requests that arrive at both at once', async () => {
    const limit = 200; // slice 10: the bound is 200 − (2 − 1)(10 − 1) = 191
    const token = await limitedToken('at once', limit);
    const answers: Reply[] = [];
    for (let wave = 0; wave < 15; wave++) {
      const sent = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? apiA : apiB).get('/api/objects', token));
      answers.push(...(await Promise.all(sent)));
    }
    answers.forEach(fields);
    const admitted = answers.filter((r) => r.status === 200).length;
    expect(answers.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
    expect(admitted).toBeLessThanOrEqual(limit);
    expect(admitted).toBeGreaterThanOrEqual(191);
  });

  it('refuses first after limit − (slice − 1) when the other daemon holds its slice; its shutdown gives it back', async () => {
    const limit = 100; // slice 5
    const token = await limitedToken('given back', limit);
    const c = await startDaemon(box);
    const apiC = client(() => c);
    let stopped = false;
    try {
      expect((await apiC.get('/api/objects', token)).status).toBe(200); // c takes 5, holds 4
      expect(await admittedUntilRefused(apiB, token, limit)).toBe(95);
      const points = () =>
        withSandboxDb(box, async (db) =>
          (await db('rate_limits').where('key', 'like', `token:${limit}/hour:%`)).map(
            (r: { points: number }) => r.points,
          ),
        );
      expect(await points()).toEqual([limit]);
      await c.stop();
      stopped = true;
      expect(await points()).toEqual([limit - 4]);
    } finally {
      if (!stopped) await c.stop();
    }
    // b asks the database again within a second of its refusal, and admits what c gave back.
    await eventually(async () => (await apiB.get('/api/objects', token)).status === 200, 'the points c gave back');
    expect(await admittedUntilRefused(apiB, token, limit)).toBe(3);
  });

  it('refuses a spent window from memory: at most one statement a second, not one a request', async () => {
    const token = await limitedToken('spent', 3);
    expect(await admittedUntilRefused(apiA, token, 3)).toBe(3);
    const before = await queries(a);
    const started = performance.now();
    const refused: Reply[] = [];
    for (let i = 0; i < 40; i++) refused.push(await apiA.get('/api/objects', token));
    const seconds = Math.ceil((performance.now() - started) / 1000);
    expect(refused.map((r) => r.status)).toEqual(Array(40).fill(429));
    refused.forEach(fields);
    expect(await queries(a)).toBeLessThanOrEqual(before + seconds + 1);
  });
});
