// Cross-origin access to the reconciliation services, as a browser page (OpenRefine's) meets
// it: CORS on every answer of those routes, errors included; preflights answered 204 before
// authentication; the access rules unchanged; JSONP (the 0.1 fallback) with a checked callback;
// nothing of this on other routes. And `Allow` naming exactly the methods of the matched path.
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes/index.js';
import { applySettings, bearer, dataOf, loadCatalog, send, type Reply } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, daemon, api, t } = useDaemonWithTokens();
let actorId = 0;

const ORIGIN = 'http://openrefine.example:3333';
const KINDS = ['actors', 'places', 'keywords'] as const;
interface Service {
  method: 'GET' | 'POST';
  path: string;
  /** What a request that succeeds adds to the path (GET). */
  query?: string;
  /** The JSON body of a request that succeeds (POST; default: a 0.2 batch). */
  body?: unknown;
}
/** The reconciliation services (0.2 and 1.0-draft), written out: the routes that must answer cross-origin. */
const SERVICES: Service[] = KINDS.flatMap((kind): Service[] => {
  const draft = `/api/${kind}/reconcile/1.0-draft`;
  return [
    { method: 'GET', path: `/api/${kind}/reconcile` },
    { method: 'POST', path: `/api/${kind}/reconcile` },
    ...['suggest/entity', 'suggest/property', 'suggest/type', 'properties', 'preview/:id'].map((s): Service => ({
      method: 'GET',
      path: `/api/${kind}/reconcile/${s}`,
      query: s === 'suggest/entity' ? '?prefix=cors' : '',
    })),
    { method: 'GET', path: draft },
    {
      method: 'POST',
      path: `${draft}/match`,
      body: { queries: [{ conditions: [{ matchType: 'name', propertyValue: 'Cors' }] }] },
    },
    { method: 'GET', path: `${draft}/suggest/entity`, query: '?prefix=cors' },
    { method: 'GET', path: `${draft}/suggest/property`, query: '?prefix=' },
    { method: 'GET', path: `${draft}/suggest/type`, query: '?prefix=p' },
    { method: 'GET', path: `${draft}/preview`, query: '?id=:id' },
    { method: 'POST', path: `${draft}/extend`, body: { ids: ['1'], properties: [{ id: 'name' }] } },
    { method: 'GET', path: `${draft}/extend/propose`, query: '?type=x' },
  ];
});
const CROSS_ORIGIN = SERVICES;

beforeAll(async () => {
  await loadCatalog(cli(), 'cors.json', {
    actors: [{ name: 'Cors, Actor', type: 'person' }],
    places: [{ name: 'Cors Place' }],
    keywords: ['Cors keyword'],
  });
  actorId = (dataOf<{ id: number }[]>(await api.get('/api/actors?search=cors', t.user))[0] as { id: number }).id;
});

/** A concrete URL for a route path of the matrix. */
const concrete = (p: string) => p.replace(':id', String(actorId));

/** A request as a browser on another origin sends it (Origin header), through the universal checks. */
const fromPage = (path: string, init: RequestInit = {}) =>
  api.request(path, { ...init, headers: { Origin: ORIGIN, ...(init.headers as Record<string, string> | undefined) } });

function expectCors(r: Reply, label: string): void {
  expect(r.headers.get('access-control-allow-origin'), label).toBe('*');
  expect(r.headers.get('access-control-allow-credentials'), label).toBeNull();
}

describe('the matrix', () => {
  it('marks exactly the reconciliation services as cross-origin, each with the authority rule', () => {
    const marked = ROUTES.filter((r) => r.crossOrigin);
    expect(marked.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
      SERVICES.map((r) => `${r.method} ${r.path}`).sort(),
    );
    for (const r of marked) expect(r.rule, r.path).toBe('authority');
  });
});

describe('CORS on the reconciliation routes', () => {
  it('answers every route with Access-Control-Allow-Origin: * (with a token)', async () => {
    for (const route of CROSS_ORIGIN) {
      const path = concrete(route.path);
      const r =
        route.method === 'GET'
          ? await fromPage(`${path}${concrete(route.query ?? '')}`, { headers: bearer(t.user) })
          : await fromPage(path, {
              method: 'POST',
              headers: { ...bearer(t.user), 'Content-Type': 'application/json' },
              body: JSON.stringify(route.body ?? { queries: { q0: { query: 'Cors' } } }),
            });
      expect(r.status, `${route.method} ${path}: ${r.text.slice(0, 200)}`).toBe(200);
      expectCors(r, `${route.method} ${path}`);
      expect(r.headers.get('access-control-expose-headers'), path).toContain('WWW-Authenticate');
    }
  });

  it('answers a preflight with 204, the methods of the path, Authorization allowed and a Max-Age, before authentication', async () => {
    for (const path of [...new Set(CROSS_ORIGIN.map((r) => concrete(r.path)))]) {
      for (const method of ['GET', 'POST']) {
        // A preflight carries no token; one with a forged token is not judged either.
        for (const extra of [{}, { Authorization: 'Bearer forged' }] as Record<string, string>[]) {
          const r = await send(daemon(), path, {
            method: 'OPTIONS',
            headers: {
              Origin: ORIGIN,
              'Access-Control-Request-Method': method,
              'Access-Control-Request-Headers': 'authorization, content-type',
              ...extra,
            },
          });
          expect(r.status, `OPTIONS ${path} (${method})`).toBe(204);
          expect(r.text).toBe('');
          expectCors(r, path);
          const methods = (r.headers.get('access-control-allow-methods') ?? '').split(',').map((s) => s.trim());
          const own = CROSS_ORIGIN.filter((x) => concrete(x.path) === path).map((x) => x.method);
          for (const m of own) expect(methods, path).toContain(m);
          expect(methods, path).not.toContain('PUT');
          const headers = (r.headers.get('access-control-allow-headers') ?? '')
            .toLowerCase()
            .split(',')
            .map((s) => s.trim());
          expect(headers, path).toEqual(expect.arrayContaining(['authorization', 'content-type']));
          expect(Number(r.headers.get('access-control-max-age')), path).toBeGreaterThan(0);
        }
      }
    }
  });

  it('keeps the access rules: without public_access the routes still need a token, and the 401 is readable cross-origin', async () => {
    await applySettings(cli(), { public_access: false, public_api: false });
    for (const route of CROSS_ORIGIN) {
      const path = concrete(route.path);
      const r = await fromPage(
        path,
        route.method === 'POST'
          ? { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"queries": {}}' }
          : {},
      );
      expect(r.status, `${route.method} ${path}`).toBe(401);
      expectCors(r, path);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="archive"/);
    }
    // public_api opens GET only: a POST of queries still needs a token.
    await applySettings(cli(), { public_access: false, public_api: true });
    expect((await fromPage('/api/places/reconcile')).status).toBe(200);
    const post = await fromPage('/api/places/reconcile', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'queries=%7B%7D',
    });
    expect(post.status).toBe(401);
    expectCors(post, 'POST with public_api');
    await applySettings(cli(), { public_access: true, public_api: false });
    expect(
      (
        await fromPage('/api/places/reconcile', {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'queries=%7B%7D',
        })
      ).status,
    ).toBe(200);
    await applySettings(cli(), { public_access: false, public_api: false });
  });

  it('puts the CORS headers on error answers too (401 token refused, api_token, 404, 405, 413, 422)', async () => {
    const errors: [string, RequestInit, number][] = [
      ['/api/actors/reconcile', { headers: { Authorization: 'Bearer arc_forgedforgedforged' } }, 401],
      ['/api/actors/reconcile?api_token=x', {}, 401],
      ['/api/actors/reconcile/preview/999999', { headers: bearer(t.user) }, 404],
      ['/api/actors/reconcile', { method: 'DELETE', headers: bearer(t.user) }, 405],
      [
        `/api/actors/reconcile?queries=${encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`q${i}`, { query: 'x' }]))))}`,
        { headers: bearer(t.user) },
        413,
      ],
      ['/api/actors/reconcile?queries=nope', { headers: bearer(t.user) }, 422],
      ['/api/actors/reconcile/suggest/entity?cursor=-1', { headers: bearer(t.user) }, 422],
    ];
    for (const [path, init, status] of errors) {
      const r = await fromPage(path, init);
      expect(r.status, path).toBe(status);
      expectCors(r, path);
    }
  });

  it('puts the CORS headers on paths under a service root that are no route, and preflights them, so their 404 is readable', async () => {
    const unknown = KINDS.flatMap((kind) => [
      `/api/${kind}/reconcile/match`,
      `/api/${kind}/reconcile/nowhere/at/all`,
      `/api/${kind}/reconcile/preview`,
      `/api/${kind}/reconcile/1.0-draft/nowhere`,
    ]);
    for (const path of unknown) {
      for (const init of [
        { headers: bearer(t.user) },
        {},
        { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"queries": []}' },
      ] as RequestInit[]) {
        const r = await fromPage(path, init);
        expect(r.status, `${init.method ?? 'GET'} ${path}`).toBe(404);
        expectCors(r, path);
        expect(r.headers.get('access-control-expose-headers'), path).toContain('WWW-Authenticate');
        expect((r.body as { error: string }).error, path).toMatch(/no such endpoint/);
      }
      // An error is never JSONP, even when a callback is asked for.
      const jsonp = await fromPage(`${path}?callback=cb`);
      expect(jsonp.status, path).toBe(404);
      expect(jsonp.headers.get('content-type'), path).toMatch(/^application\/json/);
      expectCors(jsonp, path);
      for (const method of ['GET', 'POST']) {
        const pre = await send(daemon(), path, {
          method: 'OPTIONS',
          headers: {
            Origin: ORIGIN,
            'Access-Control-Request-Method': method,
            'Access-Control-Request-Headers': 'authorization, content-type',
          },
        });
        expect(pre.status, `OPTIONS ${path} (${method})`).toBe(204);
        expectCors(pre, `OPTIONS ${path}`);
        const methods = (pre.headers.get('access-control-allow-methods') ?? '').split(',').map((s) => s.trim());
        expect(methods, path).toContain(method);
        expect(pre.headers.get('access-control-allow-headers')?.toLowerCase(), path).toContain('authorization');
      }
    }
    // A wrong method on a route under a root: the 405 is readable too.
    const wrong = await fromPage('/api/places/reconcile/suggest/entity', { method: 'DELETE', headers: bearer(t.user) });
    expect(wrong.status).toBe(405);
    expectCors(wrong, 'DELETE suggest/entity');
    // Without a token on a closed archive, the path that is no route is still a 404 (with CORS).
    await applySettings(cli(), { public_access: false, public_api: false });
    const closed = await fromPage('/api/keywords/reconcile/match', { method: 'POST', body: '{}' });
    expect(closed.status).toBe(404);
    expectCors(closed, 'closed');
  });

  it('sends no CORS headers on other routes, and their OPTIONS stays a 405', async () => {
    for (const path of [
      '/api/actors',
      `/api/actors/${actorId}`,
      '/api/objects',
      '/api/tei/actors',
      '/api/actors/reconciled',
      '/api/actors/reconcile-x/match',
      '/api/Actors/reconcile/match',
      '/api/objects/reconcile',
      '/api/nowhere',
    ]) {
      const r = await fromPage(path, { headers: bearer(t.user) });
      expect(r.headers.get('access-control-allow-origin'), path).toBeNull();
      const pre = await send(daemon(), path, {
        method: 'OPTIONS',
        headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET', ...bearer(t.user) },
      });
      expect([404, 405], path).toContain(pre.status);
      expect(pre.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });

  it('answers an OPTIONS that is not a preflight (no Origin or no requested method) like any other method: 405 with Allow', async () => {
    for (const headers of [{}, { Origin: ORIGIN }, { 'Access-Control-Request-Method': 'GET' }] as Record<
      string,
      string
    >[]) {
      const r = await api.request('/api/keywords/reconcile', {
        method: 'OPTIONS',
        headers: { ...headers, ...bearer(t.user) },
      });
      expect(r.status, JSON.stringify(headers)).toBe(405);
      expect(r.headers.get('allow')).toBe('HEAD, GET, POST');
    }
  });
});

describe('JSONP (callback=), the fallback of older OpenRefine', () => {
  it('wraps the manifest in the callback as application/javascript with nosniff', async () => {
    await applySettings(cli(), { public_access: true, public_api: false });
    for (const kind of KINDS) {
      const r = await send(daemon(), `/api/${kind}/reconcile?callback=jQuery3710_1700000000000&_=1700000000001`);
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/javascript/);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      const m = /^\/\*\*\/jQuery3710_1700000000000\((.*)\);$/s.exec(r.text);
      expect(m, r.text.slice(0, 100)).not.toBeNull();
      const manifest = JSON.parse(m?.[1] ?? 'null') as { versions: string[]; name: string };
      expect(manifest.versions).toContain('0.1');
      expect(manifest.name).toBe(`archivectl ${kind}`);
    }
    await applySettings(cli(), { public_access: false, public_api: false });
  });

  it('wraps the other GET answers too: queries, suggest, properties and extend', async () => {
    const q = encodeURIComponent(JSON.stringify({ q0: { query: 'Cors, Actor' } }));
    const e = encodeURIComponent(JSON.stringify({ ids: [String(actorId)], properties: [{ id: 'name' }] }));
    for (const path of [
      `/api/actors/reconcile?queries=${q}&callback=cb`,
      `/api/actors/reconcile?extend=${e}&callback=cb`,
      '/api/actors/reconcile/suggest/entity?prefix=cors&callback=cb',
      '/api/actors/reconcile/suggest/property?prefix=g&callback=cb',
      '/api/actors/reconcile/suggest/type?prefix=p&callback=cb',
      '/api/actors/reconcile/properties?type=person&callback=a.b.c',
    ]) {
      const r = await api.get(path, t.user);
      expect(r.status, path).toBe(200);
      expect(r.text, path).toMatch(/^\/\*\*\/(cb|a\.b\.c)\(\{.*\}\);$/s);
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    // A POST is never wrapped.
    const post = await api.request('/api/actors/reconcile?callback=cb', {
      method: 'POST',
      headers: { ...bearer(t.user), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `queries=${q}`,
    });
    expect(post.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('refuses a callback that is not a plain JavaScript name with 422, as JSON', async () => {
    const notNames = ['', 'alert(1)', 'a b', '1abc', 'a..b', 'a.', '<script>', 'x'.repeat(65), 'a;b', 'a%0Ab', 'a-b'];
    for (const callback of notNames) {
      const r = await api.get(`/api/actors/reconcile?callback=${encodeURIComponent(callback)}`, t.user);
      expect(r.status, callback).toBe(422);
      expect((r.body as { fields: Record<string, string> }).fields).toHaveProperty('callback');
    }
    const twice = await api.get('/api/actors/reconcile?callback=a&callback=b', t.user);
    expect(twice.status).toBe(422);
  });
});

describe('Allow', () => {
  it('names exactly the methods of /api/{kind}/reconcile, not PUT of /api/actors/{id}', async () => {
    for (const kind of KINDS) {
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const r = await api.request(`/api/${kind}/reconcile`, {
          method,
          headers: { ...bearer(t.editor), 'Content-Type': 'application/json' },
          body: '{}',
        });
        expect(r.status, `${method} ${kind}`).toBe(405);
        expect(r.headers.get('allow'), `${method} ${kind}`).toBe('HEAD, GET, POST');
      }
    }
  });

  it('lists exactly the methods of the matched path in every 405, for every path of the matrix', async () => {
    for (const p of [...new Set(ROUTES.map((r) => r.path))]) {
      const own = new Set(ROUTES.filter((r) => r.path === p).map((r) => r.method as string));
      if (own.has('GET')) own.add('HEAD');
      const wrong = ['DELETE', 'PATCH', 'PUT', 'POST', 'GET'].find((m) => !own.has(m)) as string;
      const url = p.replace(':id', String(actorId));
      const r = await api.request(url, {
        method: wrong,
        headers: { ...bearer(t.editor), ...(wrong === 'GET' ? {} : { 'Content-Type': 'application/json' }) },
        ...(wrong === 'GET' ? {} : { body: '{}' }),
      });
      expect(r.status, `${wrong} ${url}`).toBe(405);
      const allow = new Set((r.headers.get('allow') ?? '').split(',').map((s) => s.trim()));
      expect([...allow].sort(), `${wrong} ${url}`).toEqual([...own].sort());
    }
  });

  it('still serves GET /api/actors/{id} and PUT /api/actors/{id} beside the reconciliation paths', async () => {
    expect((await api.get(`/api/actors/${actorId}`, t.user)).status).toBe(200);
    expect((await api.put(`/api/actors/${actorId}`, { comment: 'still an actor' }, t.editor)).status).toBe(200);
  });
});
