// Issue 10, finding 3 and 10: /healthz, /readyz and /metrics outside /api, request ids, and what
// the access log says about each request. HTTP against a daemon running in this process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, send } from '../helpers/api.js';
import { createSandbox, IS_PG, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { logEntries, startDaemon, useDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { rawExchange } from '../helpers/raw-http.js';

const { daemon } = useDaemon();

const requestLines = (d: RunningDaemon) => logEntries(d).filter((e) => e.msg === 'request');

describe('/healthz and /readyz', () => {
  it('/healthz answers 200 {"status": "ok"} without a token', async () => {
    const r = await send(daemon(), '/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('/readyz answers 200 once the database answers (and, on PostgreSQL, notifications are up)', async () => {
    const r = await send(daemon(), '/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'ready',
      checks: IS_PG ? { database: 'ok', notifications: 'up' } : { database: 'ok' },
    });
  });

  it('HEAD works on both', async () => {
    for (const path of ['/healthz', '/readyz'])
      expect((await daemon().fetch(path, { method: 'HEAD' })).status).toBe(200);
  });

  it('is kept out of the access log', async () => {
    await send(daemon(), '/healthz');
    await send(daemon(), '/readyz');
    expect(requestLines(daemon()).filter((e) => e.path === '/healthz' || e.path === '/readyz')).toEqual([]);
  });

  it('changes nothing else outside /api: other methods and near paths are the 404 they were', async () => {
    for (const [method, path] of [
      ['POST', '/healthz'],
      ['DELETE', '/readyz'],
      ['GET', '/healthz/'],
      ['GET', '/Healthz'],
      ['GET', '/api/healthz'],
    ] as const) {
      const r = await send(daemon(), path, { method });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toEqual({ error: `no such endpoint: ${path}` });
    }
  });
});

describe('request ids', () => {
  it('every answer carries a fresh X-Request-Id, the same as in its access-log line', async () => {
    const a = await send(daemon(), '/api/objects', { headers: { 'User-Agent': 'probe-test/1.0' } });
    const b = await send(daemon(), '/no/such/path');
    const idA = a.headers.get('x-request-id');
    const idB = b.headers.get('x-request-id');
    expect(idA).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(idB).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(idA).not.toBe(idB);
    const line = requestLines(daemon()).find((e) => e.request_id === idA);
    expect(line).toMatchObject({
      method: 'GET',
      path: '/api/objects',
      status: 401,
      ip: '127.0.0.1',
      user_agent: 'probe-test/1.0',
    });
  });

  it('ignores a client X-Request-Id when it does not come through a trusted proxy', async () => {
    const r = await send(daemon(), '/healthz', { headers: { 'X-Request-Id': 'chosen-by-client' } });
    expect(r.headers.get('x-request-id')).not.toBe('chosen-by-client');
  });

  it('logs the user agent bounded and with control characters escaped', async () => {
    // U+202E (right-to-left override) as UTF-8 reaches the parser as latin1 bytes, one a C1 control.
    const ua = `evil\u202e${'x'.repeat(1000)}`;
    const request = `GET /nope-ua HTTP/1.1\r\nHost: x\r\nUser-Agent: ${ua}\r\nConnection: close\r\n\r\n`;
    const outcome = await rawExchange(daemon().url, Buffer.from(request, 'utf8'));
    expect(outcome.kind).toBe('response');
    const id = outcome.kind === 'response' ? outcome.response.headers['x-request-id'] : undefined;
    const line = requestLines(daemon()).find((e) => e.request_id === id);
    const logged = String(line?.user_agent);
    expect(logged.startsWith('evil\u00e2\\x80\u00ae')).toBe(true);
    expect(logged.length).toBeLessThanOrEqual(270);
    expect(
      [...logged].some((c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f)),
    ).toBe(false);
  });

  it('levels are words', () => {
    expect(logEntries(daemon()).find((e) => e.msg === 'listening')?.level).toBe('info');
  });
});

describe('behind a trusted proxy', () => {
  let box: Sandbox;
  let d: RunningDaemon;
  beforeAll(async () => {
    box = await createSandbox();
    await patchConfig(box, { trustProxy: ['loopback'], publicUrl: 'https://archive.example.org' });
    d = await startDaemon(box);
  });
  afterAll(async () => {
    await d.stop();
    await box.cleanup();
  });

  it('takes a well-formed X-Request-Id from the proxy, and replaces one that is not', async () => {
    const good = await send(d, '/api/objects', { headers: { 'X-Request-Id': '0f8c2a1e-proxy.id:7' } });
    expect(good.headers.get('x-request-id')).toBe('0f8c2a1e-proxy.id:7');
    expect(requestLines(d).find((e) => e.request_id === '0f8c2a1e-proxy.id:7')).toBeDefined();
    for (const bad of ['a b', 'x'.repeat(65), 'semi;colon', '']) {
      const r = await send(d, '/api/objects', { headers: { 'X-Request-Id': bad } });
      expect(r.headers.get('x-request-id'), JSON.stringify(bad)).toMatch(/^[A-Za-z0-9_-]{12}$/);
    }
  });

  it('logs the client address the proxy names', async () => {
    const r = await send(d, '/api/objects', { headers: { 'X-Forwarded-For': '198.51.100.23' } });
    const line = requestLines(d).find((e) => e.request_id === r.headers.get('x-request-id'));
    expect(line?.ip).toBe('198.51.100.23');
  });

  it('/metrics is not shown to a remote client forwarded by the proxy (metrics: "local")', async () => {
    const remote = await send(d, '/metrics', { headers: { 'X-Forwarded-For': '198.51.100.23' } });
    expect(remote.status).toBe(404);
    expect(remote.body).toEqual({ error: 'no such endpoint: /metrics' });
    const local = await send(d, '/metrics');
    expect(local.status).toBe(200);
  });

  it('a token-refusal still answers as before', async () => {
    const r = await send(d, '/api/objects', { headers: bearer('arc_nope') });
    expect(r.status).toBe(401);
  });
});
