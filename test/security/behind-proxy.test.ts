// Safe behind a proxy and its cache (security round 4, findings 3, 4 and 6), through HTTP against
// listening daemons:
// - every answer says who may keep it: asked with a token, `private` (no shared cache stores it);
//   anonymous, `no-cache`; all `Vary: Authorization`;
// - absolute URLs (manifests 0.2 and 1.0-draft, Location, BEACON #TARGET) come from `publicUrl` or
//   the daemon's own origin, never from Host or X-Forwarded-Host; with `trustProxy`, `publicUrl`
//   is required;
// - a BEACON dump is built once per change whatever Host each request names;
// - a trusted proxy's X-Forwarded-For must hold IP addresses (else 400, nothing logged of it), and
//   the address kept is canonical.
import http from 'node:http';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/api.js';
import { createAccounts, createSandbox, createToken, lines, STACK_FRAME_RE, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { requestWhole, type WholeAnswer } from '../helpers/raw-http.js';

type Answer = WholeAnswer;

/** A request with headers fetch will not send as given (Host above all). */
function request(
  d: RunningDaemon,
  target: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
): Promise<Answer> {
  const url = new URL(target, d.url);
  const sized =
    body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
  return requestWhole(
    http,
    {
      host: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      method,
      headers: { ...headers, ...sized },
    },
    body,
  );
}

const varyNames = (a: Answer) =>
  String(a.headers.vary ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase());

/** Every URL a manifest (0.2 or 1.0-draft) holds, however deep. */
function urlsOf(value: unknown): string[] {
  if (typeof value === 'string') return /^[a-z]+:/i.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsOf);
  if (value && typeof value === 'object') return Object.values(value).flatMap(urlsOf);
  return [];
}

const HOSTILE_HOSTS: Record<string, string>[] = [
  { Host: 'evil.example' },
  { Host: 'evil.example:8443' },
  { Host: '127.0.0.1:1' },
  { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'javascript:alert(1)//' },
  { Host: 'evil.example', 'X-Forwarded-Host': 'evil2.example', Forwarded: 'host=evil3.example;proto=https' },
];

let box: Sandbox;
let d: RunningDaemon;
let alice: string;
let editor: string;
let actorId: number;
const origin = () => d.url.replace(/\/$/, '');

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, { root: 'superuser', alice: 'user', ed: 'editor' });
  alice = (await createToken(box, 'alice', 'reader', 'root')).token;
  editor = (await createToken(box, 'ed', 'writer', 'root')).token;
  d = await startDaemon(box);
  const created = await d.fetch('/api/actors', {
    method: 'POST',
    headers: { ...bearer(editor), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Cached, Carla', gnd: '118540238' }),
  });
  expect(created.status).toBe(201);
  actorId = ((await created.json()) as { data: { id: number } }).data.id;
});
afterAll(async () => {
  await d?.stop();
  await box?.cleanup();
});

describe('Cache-Control and Vary', () => {
  const personal = () => [
    '/api/actors',
    `/api/actors/${actorId}`,
    '/api/objects',
    '/api/places?perPage=1',
    '/api/actors/reconcile',
    '/api/actors/reconcile/1.0-draft',
    '/api/keywords/reconcile?callback=cb',
    '/api/token',
    '/api/nothing-here',
  ];

  it('answers asked with a token are private (no-store), and vary on Authorization', async () => {
    for (const target of personal()) {
      const r = await request(d, target, bearer(alice));
      expect(r.status, `${target}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
      expect(r.headers['cache-control'], target).toBe('private, no-store');
      expect(varyNames(r), target).toContain('authorization');
    }
  });

  it('a refused token’s answer is private too, and a write’s', async () => {
    const forged = await request(d, '/api/actors', { Authorization: 'Bearer arc_forged_value_for_the_cache_test' });
    expect(forged.status).toBe(401);
    expect(forged.headers['cache-control']).toBe('private, no-store');
    const write = await request(d, '/api/actors', bearer(editor), 'POST', JSON.stringify({ name: 'Written, Wanda' }));
    expect(write.status).toBe(201);
    expect(write.headers['cache-control']).toBe('private, no-store');
  });

  it('documents with validators asked with a token: private, no-cache (the client may revalidate)', async () => {
    for (const target of ['/api/actors?format=beacon', '/api/tei/actors']) {
      const r = await request(d, target, bearer(alice));
      expect(r.status, target).toBe(200);
      expect(r.headers.etag, target).toBeDefined();
      expect(r.headers['cache-control'], target).toBe('private, no-cache');
      expect(varyNames(r), target).toContain('authorization');
    }
  });

  it('anonymous answers (401 while the archive is closed) are no-cache and vary on Authorization', async () => {
    for (const target of personal()) {
      const r = await request(d, target);
      expect(r.status, target).toBeGreaterThanOrEqual(400);
      expect(r.headers['cache-control'], target).toBe('no-cache');
      expect(varyNames(r), target).toContain('authorization');
    }
  });

  it('probes keep no-store', async () => {
    const r = await request(d, '/healthz');
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
  });
});

describe('Cache-Control and Vary while the archive is public', () => {
  beforeAll(async () => {
    expect((await box.run(['settings', 'set', 'public_access', 'on', '--as', 'root'])).code).toBe(0);
  });
  afterAll(async () => {
    expect((await box.run(['settings', 'set', 'public_access', 'off', '--as', 'root'])).code).toBe(0);
  });

  it('anonymous answers are no-cache (a cache asks again each time) and vary on Authorization', async () => {
    for (const target of ['/api/actors', `/api/actors/${actorId}`, '/api/actors/reconcile', '/api/tei/actors']) {
      const r = await request(d, target);
      expect(r.status, target).toBe(200);
      expect(r.headers['cache-control'], target).toBe('no-cache');
      expect(varyNames(r), target).toContain('authorization');
      // The same URL with a token: private.
      expect((await request(d, target, bearer(alice))).headers['cache-control'], target).toMatch(/^private, /);
    }
    const dump = await request(d, '/api/actors?format=beacon');
    expect(dump.headers['cache-control']).toBe('no-cache');
    expect(dump.headers.etag).toBeDefined();
  });
});

describe('absolute URLs never come from Host or X-Forwarded-*', () => {
  it('the manifests (0.2 and 1.0-draft) name the daemon’s own origin whatever Host the request names', async () => {
    for (const kind of ['actors', 'places', 'keywords']) {
      for (const root of [`/api/${kind}/reconcile`, `/api/${kind}/reconcile/1.0-draft`]) {
        for (const headers of HOSTILE_HOSTS) {
          const r = await request(d, root, { ...headers, ...bearer(alice) });
          expect(r.status, `${root} ${JSON.stringify(headers)}`).toBe(200);
          const urls = urlsOf(JSON.parse(r.text));
          expect(urls.length).toBeGreaterThan(0);
          for (const u of urls) expect(u.startsWith(`${origin()}/api/${kind}/`), `${root}: ${u}`).toBe(true);
          expect(r.text).not.toMatch(/evil|javascript:|127\.0\.0\.1:1\//);
        }
      }
    }
  });

  it('Location of a created record is on the daemon’s own origin', async () => {
    for (const headers of HOSTILE_HOSTS) {
      const r = await request(d, '/api/places', { ...headers, ...bearer(editor) }, 'POST', '{"name":"Bern"}');
      expect(r.status).toBe(201);
      expect(r.headers.location).toMatch(new RegExp(`^${origin().replace(/\./g, '\\.')}/api/places/\\d+$`));
    }
  });

  it('a BEACON dump is built once per change: each Host gets the same text, from one file', async () => {
    const exportsDir = path.join(box.dir, 'data', 'exports');
    const beaconFiles = async () => (await readdir(exportsDir).catch(() => [])).filter((f) => f.startsWith('beacon-'));
    const before = await request(d, '/api/actors?format=beacon', bearer(alice));
    expect(before.status).toBe(200);
    expect(before.text).toContain(`#TARGET: ${origin()}/api/actors/{ID}\n`);
    const files = await beaconFiles();
    expect(files).toHaveLength(1);
    for (let i = 0; i < 40; i++) {
      const r = await request(d, '/api/actors?format=beacon', {
        ...bearer(alice),
        Host: `host${i}.example`,
        'X-Forwarded-Host': `fwd${i}.example`,
      });
      expect(r.status).toBe(200);
      expect(r.headers.etag).toBe(before.headers.etag);
      expect(r.text).toBe(before.text);
    }
    expect(await beaconFiles()).toEqual(files);
  });
});

describe('trustProxy without publicUrl', () => {
  it('stops `serve` before it listens, naming publicUrl, trustProxy and the fix (exit 2, one line)', async () => {
    const other = await createSandbox();
    try {
      await patchConfig(other, { trustProxy: ['127.0.0.1'] });
      const r = await other.run(['serve', '--host', '127.0.0.1', '--port', '0'], { spawn: true });
      expect(r.code, r.stderr).toBe(2);
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/"publicUrl" is required when "trustProxy" names proxies: set it to .*https:\/\//);
      expect(r.stderr).toContain(other.configFile);
      expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
      expect(r.stdout).not.toContain('"msg":"listening"');
      expect((await other.run(['settings'])).code).toBe(2);
    } finally {
      await other.cleanup();
    }
  });
});

describe('behind a trusted proxy (trustProxy loopback, publicUrl set)', () => {
  const PUBLIC = 'https://archive.example.org/base';
  let proxied: Sandbox;
  let p: RunningDaemon;
  let token: string;
  beforeAll(async () => {
    proxied = await createSandbox();
    await patchConfig(proxied, { trustProxy: ['loopback'], publicUrl: PUBLIC });
    await createAccounts(proxied, { root: 'superuser', bot: 'editor' });
    token = (await createToken(proxied, 'bot', 'proxied', 'root')).token;
    p = await startDaemon(proxied);
  });
  afterAll(async () => {
    await p?.stop();
    await proxied?.cleanup();
  });

  const logOf = (requestId: string) =>
    p.logs
      .map((l) => JSON.parse(l) as { request_id?: string; ip?: string })
      .find((e) => e.request_id === requestId && e.ip !== undefined);

  it('refuses X-Forwarded-For entries that are no IP address with 400, and logs none of them', async () => {
    const junk = [
      'unknown',
      'not-an-address',
      'a'.repeat(8000),
      '198.51.100.7:8080',
      'fe80::1%eth0',
      '\u0085evil',
      '1.2.3.04',
    ];
    for (const value of [...junk, `${junk[0]}, 198.51.100.7`, '198.51.100.7, , 198.51.100.8', '198.51.100.7,']) {
      const r = await request(p, '/api/actors', { ...bearer(token), 'X-Forwarded-For': value });
      expect(r.status, value.slice(0, 40)).toBe(400);
      expect((JSON.parse(r.text) as { error: string }).error).toContain('X-Forwarded-For');
      const id = String(r.headers['x-request-id']);
      expect(logOf(id)?.ip, value.slice(0, 40)).toBe('127.0.0.1');
    }
    const text = p.logs.join('\n');
    for (const value of junk) expect(text).not.toContain(value);
  });

  it('keeps a forwarded address in its canonical form', async () => {
    for (const [given, kept] of [
      ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
      ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
      ['::ffff:198.51.100.9', '198.51.100.9'],
      ['203.0.113.5', '203.0.113.5'],
    ] as const) {
      const r = await request(p, '/api/actors', { ...bearer(token), 'X-Forwarded-For': `192.0.2.1, ${given}` });
      expect(r.status).toBe(200);
      expect(logOf(String(r.headers['x-request-id']))?.ip, given).toBe(kept);
    }
  });

  it('writes absolute URLs from publicUrl whatever X-Forwarded-Host and X-Forwarded-Proto say', async () => {
    for (const headers of HOSTILE_HOSTS) {
      const m = await request(p, '/api/actors/reconcile', { ...headers, ...bearer(token) });
      for (const u of urlsOf(JSON.parse(m.text))) expect(u.startsWith(`${PUBLIC}/api/actors/`), u).toBe(true);
      const c = await request(p, '/api/places', { ...headers, ...bearer(token) }, 'POST', '{"name":"Chur"}');
      expect(c.status).toBe(201);
      expect(c.headers.location).toMatch(/^https:\/\/archive\.example\.org\/base\/api\/places\/\d+$/);
    }
  });

  it('takes X-Request-Id from the proxy only when it is 1-64 of [A-Za-z0-9._:-]', async () => {
    const good = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    expect((await request(p, '/healthz', { 'X-Request-Id': good })).headers['x-request-id']).toBe(good);
    for (const bad of ['x'.repeat(65), 'has space', 'quote"d', 'ümlaut']) {
      const r = await request(p, '/healthz', { 'X-Request-Id': bad });
      expect(r.headers['x-request-id']).toMatch(/^[A-Za-z0-9_-]{12}$/);
    }
  });
});
