// The docs/deployment.md's "Behind a reverse proxy" example, replayed with the real nginx (Debian's package
// `nginx`, installed by .ci/run) in front of a daemon configured with the README's JSON: TLS on a
// free loopback port instead of 443, the daemon's port instead of 8080, a test certificate, and
// the cache directory in the test's own folder; nothing else of the README's text changes. Once
// as written, once with its `proxy_cache` lines switched on (with `proxy_cache_valid`, which
// stores any 200 that does not forbid it). Through nginx:
// - an anonymous client after Alice gets 401, never Alice's answer out of the cache;
// - a spoofed Host or X-Forwarded-Host changes no URL of the manifest, nor Location;
// - a client's X-Forwarded-For and X-Request-Id are not what the daemon takes.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createSandbox, createToken, type Sandbox } from '../helpers/cli.js';
import { patchConfig, type Json } from '../helpers/config.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { requestWhole, type WholeAnswer } from '../helpers/raw-http.js';
import { freePort, NGINX, runNginx, type Nginx } from '../helpers/nginx.js';
import { installLegOnly } from '../helpers/system-tools.js';
import { codeBlocks, readmeSection } from './readme-replay.js';
import { makeCertificate, OPENSSL } from '../helpers/certificate.js';

const missing = installLegOnly() ?? NGINX.skip ?? OPENSSL.skip;

const SECTION = 'Behind a reverse proxy';

/** `text` with `from` replaced by `to`, failing when the README no longer holds `from`. */
function swap(text: string, from: string | RegExp, to: string): string {
  expect(text, `the README's nginx example no longer has ${String(from)}`).toMatch(from);
  return text.replace(from, to);
}

/** nginx running the README's example in `dir`, in front of the daemon at `upstreamPort`. */
async function startNginx(
  dir: string,
  upstreamPort: number,
  cert: string,
  key: string,
  cache: boolean,
): Promise<Nginx> {
  const port = await freePort();
  let site = codeBlocks(readmeSection(SECTION), 'nginx')[0] ?? '';
  site = swap(site, 'listen 443 ssl http2;', `listen 127.0.0.1:${port} ssl http2;`);
  site = swap(site, /ssl_certificate \S+;/, `ssl_certificate ${cert};`);
  site = swap(site, /ssl_certificate_key \S+;/, `ssl_certificate_key ${key};`);
  site = swap(site, 'proxy_pass http://127.0.0.1:8080;', `proxy_pass http://127.0.0.1:${upstreamPort};`);
  site = swap(site, '/var/cache/nginx/archive', path.join(dir, 'cache'));
  if (cache) site = swap(site, /^(\s*)# (proxy_cache\S* )/gm, '$1$2');
  // Which answers came through the cache (empty when it is not used): shows the variant is live.
  return runNginx(dir, port, ['    add_header X-Cache-Status $upstream_cache_status always;', site]);
}

/** A request to nginx over TLS (the test's own certificate: not checked). */
function through(
  nginx: Nginx,
  target: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
): Promise<WholeAnswer> {
  const sized =
    body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
  return requestWhole(
    https,
    {
      host: '127.0.0.1',
      port: nginx.port,
      path: target,
      method,
      rejectUnauthorized: false,
      agent: false,
      headers: { ...sized, ...headers },
    },
    body,
  );
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe.skipIf(missing !== null)(`the README's nginx example (${missing ?? 'nginx found'})`, () => {
  let box: Sandbox;
  let daemon: RunningDaemon;
  let dir: string;
  let plain: Nginx;
  let cached: Nginx;
  let alice: string;
  let editor: string;
  let actorId: number;
  let publicUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-nginx-'));
    const { cert, key } = makeCertificate(dir, 'archive.example.org');
    box = await createSandbox();
    // The README's configuration, but for the port (`serve --port 0` picks one).
    const readmeConfig = JSON.parse(codeBlocks(readmeSection(SECTION), 'json')[0] ?? '{}') as Json;
    publicUrl = String(readmeConfig.publicUrl);
    await patchConfig(box, readmeConfig);
    await createAccounts(box, { root: 'superuser', alice: 'user', ed: 'editor' });
    alice = (await createToken(box, 'alice', 'reader', 'root')).token;
    editor = (await createToken(box, 'ed', 'writer', 'root')).token;
    daemon = await startDaemon(box);
    const created = await daemon.fetch('/api/actors', {
      method: 'POST',
      headers: { ...bearer(editor), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Proxied, Paula' }),
    });
    expect(created.status).toBe(201);
    actorId = ((await created.json()) as { data: { id: number } }).data.id;
    const upstream = Number(new URL(daemon.url).port);
    for (const sub of ['plain', 'cached']) await mkdir(path.join(dir, sub));
    plain = await startNginx(path.join(dir, 'plain'), upstream, cert, key, false);
    cached = await startNginx(path.join(dir, 'cached'), upstream, cert, key, true);
  }, 120_000);

  afterAll(async () => {
    await plain?.stop();
    await cached?.stop();
    await daemon?.stop();
    await box?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const TARGETS = () => [
    '/api/actors',
    `/api/actors/${actorId}`,
    '/api/objects',
    '/api/actors/reconcile',
    '/api/actors/reconcile/1.0-draft',
  ];

  it('with proxy_cache: an anonymous client after Alice gets 401, never her answer', async () => {
    for (const target of TARGETS()) {
      const before = await through(cached, target);
      expect(before.status, target).toBe(401);
      const hers = await through(cached, target, bearer(alice));
      expect(hers.status, target).toBe(200);
      expect(hers.headers['cache-control'], target).toBe('private, no-store');
      // The cache is in the path: nginx looked it up (MISS), and did not serve from it.
      expect(hers.headers['x-cache-status'], target).toBe('MISS');
      for (let i = 0; i < 3; i++) {
        const after = await through(cached, target);
        expect(after.status, `${target}: ${after.text.slice(0, 120)}`).toBe(401);
        expect(after.text).not.toContain('Proxied, Paula');
        expect(after.headers['x-cache-status'], target).not.toBe('HIT');
      }
    }
    expect(await cached.errors()).not.toMatch(/\[(crit|alert|emerg)\]/);
  });

  it('a spoofed Host or X-Forwarded-Host changes no URL of the manifest, nor Location', async () => {
    const spoofs: Record<string, string>[] = [
      { Host: 'evil.example' },
      { 'X-Forwarded-Host': 'evil.example' },
      {
        'X-Forwarded-Host': 'evil.example',
        'X-Forwarded-Proto': 'javascript:alert(1)//',
        Forwarded: 'host=evil.example',
      },
    ];
    for (const nginx of [plain, cached]) {
      const reference = await through(nginx, '/api/actors/reconcile', bearer(alice));
      expect(reference.status).toBe(200);
      expect(JSON.parse(reference.text)).toMatchObject({ identifierSpace: `${publicUrl}/api/actors/` });
      for (const spoof of spoofs) {
        // Anonymous first (a cache would keep a poisoned answer for the next client), then Alice.
        await through(nginx, '/api/actors/reconcile', spoof);
        const m = await through(nginx, '/api/actors/reconcile', { ...spoof, ...bearer(alice) });
        expect(m.text, JSON.stringify(spoof)).toBe(reference.text);
        const c = await through(nginx, '/api/places', { ...spoof, ...bearer(editor) }, 'POST', '{"name":"Sion"}');
        expect(c.status).toBe(201);
        expect(c.headers.location).toMatch(new RegExp(`^${publicUrl.replace(/\./g, '\\.')}/api/places/\\d+$`));
      }
    }
  });

  it('the daemon takes nginx’s request id and the address nginx saw, not what the client sent', async () => {
    const r = await through(plain, '/api/actors', {
      ...bearer(alice),
      'X-Request-Id': 'chosen-by-the-client',
      'X-Forwarded-For': '198.51.100.66',
    });
    expect(r.status).toBe(200);
    const id = String(r.headers['x-request-id']);
    expect(id).toMatch(/^[0-9a-f]{32}$/); // nginx's $request_id
    const line = daemon.logs
      .map((l) => JSON.parse(l) as { request_id?: string; ip?: string })
      .find((e) => e.request_id === id && e.ip !== undefined);
    expect(line?.ip).toBe('127.0.0.1');
    expect(daemon.logs.join('\n')).not.toContain('chosen-by-the-client');
    expect(daemon.logs.join('\n')).not.toContain('198.51.100.66');
  });
});
