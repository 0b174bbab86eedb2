// Rate limits (issue 34, item 3): `limits.tokenRate` for tokens, keyed by the token, and
// `limits.anonymousRate` for requests without one, keyed by the client's address. Every answer
// to a limited client carries the RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10),
// exactly; past the limit 429 with Retry-After and the same fields; a client without a limit
// gets neither. Hour-long windows: a test never straddles a window's end. Runs on the suite's
// backend (memory counts on SQLite, the rate_limits table on PostgreSQL).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, client, type Reply } from '../helpers/api.js';
import { createAccounts, createToken, createSandbox, type Sandbox } from '../helpers/cli.js';
import { patchConfig, type Json } from '../helpers/config.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';

/** A sandbox with `limits` patched in and a daemon on it, for the enclosing describe block. */
function limitedDaemon(limits: Json) {
  let box: Sandbox | undefined;
  let daemon: RunningDaemon | undefined;
  let reader = '';
  beforeAll(async () => {
    box = await createSandbox();
    await patchConfig(box, { limits });
    await createAccounts(box, { root: 'superuser', reader: 'user' });
    reader = (await createToken(box, 'reader', 'limited', 'root')).token;
    daemon = await startDaemon(box);
  });
  afterAll(async () => {
    await daemon?.stop();
    await box?.cleanup();
  });
  return {
    box: () => box as Sandbox,
    daemon: () => daemon as RunningDaemon,
    reader: () => reader,
  };
}

/** The `t` of a RateLimit field: seconds left of the window, within it. */
function fields(r: Reply, policy: string, q: number, w: number, remaining: number): number {
  expect(r.headers.get('ratelimit-policy'), `${r.method} ${r.path} → ${r.status}`).toBe(`"${policy}";q=${q};w=${w}`);
  const field = r.headers.get('ratelimit') ?? '';
  const match = new RegExp(`^"${policy}";r=(\\d+);t=(\\d+)$`).exec(field);
  expect(match, `RateLimit: ${field}`).not.toBeNull();
  expect(Number(match?.[1])).toBe(remaining);
  const t = Number(match?.[2]);
  expect(t).toBeGreaterThanOrEqual(0);
  expect(t).toBeLessThanOrEqual(w);
  return t;
}

const noFields = (r: Reply) => {
  expect(r.headers.get('ratelimit-policy'), `${r.method} ${r.path}`).toBeNull();
  expect(r.headers.get('ratelimit'), `${r.method} ${r.path}`).toBeNull();
};

describe('limits.tokenRate', () => {
  const d = limitedDaemon({ tokenRate: '3/hour' });
  const api = client(() => d.daemon());

  it('puts the fields on every answer to the token, refusals included, and answers 429 past the limit', async () => {
    fields(await api.get('/api/objects', d.reader()), 'token', 3, 3600, 2);
    // A path that is no route is still a request the token made: counted, with its fields.
    const missing = await api.get('/api/no-such-thing', d.reader());
    expect(missing.status).toBe(404);
    fields(missing, 'token', 3, 3600, 1);
    fields(await api.get('/api/token', d.reader()), 'token', 3, 3600, 0);
    const refused = await api.get('/api/objects', d.reader());
    expect(refused.status).toBe(429);
    const t = fields(refused, 'token', 3, 3600, 0);
    expect(refused.headers.get('retry-after')).toBe(String(Math.max(1, t)));
    expect((refused.body as { error: string }).error).toContain('this token may make 3 requests per hour');
  });

  it('counts each token on its own', async () => {
    const other = (await createToken(d.box(), 'reader', 'another', 'root')).token;
    fields(await api.get('/api/objects', other), 'token', 3, 3600, 2);
  });

  it('leaves requests without a token alone (no anonymousRate): no fields', async () => {
    noFields(await api.get('/api'));
  });

  it('lets a page read the fields across origins (CORS of the reconciliation services)', async () => {
    const t = (await createToken(d.box(), 'reader', 'browser', 'root')).token;
    const r = await api.request('/api/actors/reconcile', {
      headers: { Origin: 'https://refine.example', ...bearer(t) },
    });
    fields(r, 'token', 3, 3600, 2);
    expect(r.headers.get('access-control-expose-headers')).toMatch(/RateLimit, RateLimit-Policy/);
  });
});

describe('limits.anonymousRate', () => {
  const d = limitedDaemon({ anonymousRate: '2/hour' });
  const first = client(() => d.daemon(), '127.0.0.2');
  const second = client(() => d.daemon(), '127.0.0.3');

  it('counts requests without a token per client address', async () => {
    fields(await first.get('/api'), 'anonymous', 2, 3600, 1);
    // Refused by the route's rule (401): counted all the same.
    const unauthenticated = await first.get('/api/objects');
    expect(unauthenticated.status).toBe(401);
    fields(unauthenticated, 'anonymous', 2, 3600, 0);
    const refused = await first.get('/api');
    expect(refused.status).toBe(429);
    const t = fields(refused, 'anonymous', 2, 3600, 0);
    expect(refused.headers.get('retry-after')).toBe(String(Math.max(1, t)));
    expect((refused.body as { error: string }).error).toContain('2 requests per hour from one address');

    // Another address has its own count.
    fields(await second.get('/api'), 'anonymous', 2, 3600, 1);
  });

  it('leaves tokens alone (no tokenRate): no fields, from an address whose anonymous limit is spent', async () => {
    const r = await first.get('/api/objects', d.reader());
    expect(r.status).toBe(200);
    noFields(r);
  });
});

describe('a rate in the configuration', () => {
  const box = (() => {
    let b: Sandbox | undefined;
    beforeAll(async () => {
      b = await createSandbox();
    });
    afterAll(async () => b?.cleanup());
    return () => b as Sandbox;
  })();

  it.each([
    ['tokenRate', '600/day'],
    ['tokenRate', '0/minute'],
    ['anonymousRate', 600],
    ['reportRate', null],
  ])('is refused with a configuration error naming the key (limits.%s: %j)', async (key, value) => {
    const file = path.join(box().dir, `bad-${key}.json`);
    await writeFile(file, JSON.stringify({ ...(await patchConfig(box(), {})), limits: { [key]: value } }), {
      mode: 0o600,
    });
    const r = await box().run(['settings'], { config: file });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`"limits.${key}" must be`);
    expect(r.stderr).toContain('N/minute or N/hour');
  });
});
