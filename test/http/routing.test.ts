// docs/http-api.md routing and errors through a real daemon: unknown paths → 404 and wrong methods → 405
// with Allow, as JSON; every error body a JSON object with a string `error`; and no 5xx for odd
// query parameters, ids, paths or field values on any route of the matrix (ROUTES).
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes/index.js';
import { bearer, dataOf, inPool, loadCatalog, replyProblems, sampledPairs, send } from '../helpers/api.js';
import { ACTOR_FIELDS, PLACE_FIELDS, QUERY_PARAMETERS } from '../helpers/catalog.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, daemon, api, t } = useDaemonWithTokens();
let actorId = 0;
let placeId = 0;

beforeAll(async () => {
  await loadCatalog(cli(), 'routing.json', {
    actors: [{ name: 'Routing actor', gnd: '118540238' }],
    places: [{ name: 'Routing place', geonames: '2657896' }],
    keywords: ['Routing keyword'],
    objects: [{ identifier: 'ROUTING-1', title: 'Routing object', keywords: ['Routing keyword'] }],
  });
  actorId = (dataOf<{ id: number }[]>(await api.get('/api/actors?search=routing', t.user))[0] as { id: number }).id;
  placeId = (dataOf<{ id: number }[]>(await api.get('/api/places?search=routing', t.user))[0] as { id: number }).id;
});

/** A concrete path for a ROUTES path: `:id` becomes an existing id where there is one. */
function concrete(p: string): string {
  if (p.startsWith('/api/actors/')) return p.replace(':id', String(actorId));
  if (p.startsWith('/api/places/')) return p.replace(':id', String(placeId));
  return p.replace(':id', '1');
}

describe('unknown paths', () => {
  it('answer 404 with a JSON error, with a valid token', async () => {
    for (const p of [
      ...['/api/nowhere', '/api//actors', '/api/actors/1/extra', '/api/actors/reconcile/extra'],
      ...['/api/tei', '/api/tei/persons', '/api/tei/refresh/now'],
      ...['/api/ingest', '/api/ingest/confirm', '/api/ingest/confirm/1/2', '/api/ingest/unknown/1'],
      ...['/api/sips', '/api/ai-cataloging', '/api/keywords/1', '/api/objects/1'],
    ]) {
      const r = await api.get(p, t.user);
      expect(r.status, p).toBe(404);
      expect(r.headers.get('content-type'), p).toMatch(/^application\/json/);
      expect(typeof (r.body as { error: unknown }).error, p).toBe('string');
    }
  });

  it('outside /api answer 404 JSON, with or without a token', async () => {
    for (const p of ['/', '/index.html', '/apix', '/health', '/actors', '/.env']) {
      for (const token of [undefined, t.user]) {
        const r = await api.get(p, token);
        expect(r.status, `${p} ${token ? 'with' : 'without'} a token`).toBe(404);
      }
    }
  });

  it('POST, PUT and DELETE to unknown paths answer 404 JSON', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const r = await api.request('/api/nothing/here', { method, headers: bearer(t.editor) });
      expect(r.status, method).toBe(404);
    }
  });
});

describe('wrong methods', () => {
  it('answer 405 with Allow naming the methods of the path, for every path of ROUTES', async () => {
    const paths = [...new Set(ROUTES.map((r) => r.path))];
    for (const p of paths) {
      // The methods of every ROUTES row whose pattern is exactly this path.
      const methods = new Set(ROUTES.filter((r) => r.path === p).map((r) => r.method));
      const expected = new Set([...methods, ...(methods.has('GET') ? ['HEAD'] : [])]);
      for (const method of ['DELETE', 'PATCH', 'GET', 'POST', 'PUT']) {
        if (expected.has(method)) continue;
        const url = concrete(p);
        // /api/{kind}/reconcile also matches /api/{kind}/:id; skip methods that other pattern serves.
        if (
          p.endsWith('/reconcile') &&
          ROUTES.some((r) => r.path === p.replace('reconcile', ':id') && r.method === method)
        )
          continue;
        const r = await api.request(url, {
          method,
          headers: { ...bearer(t.editor), ...(method === 'GET' ? {} : { 'Content-Type': 'application/json' }) },
          ...(method === 'GET' ? {} : { body: '{}' }),
        });
        expect(r.status, `${method} ${url}`).toBe(405);
        const allow = (r.headers.get('allow') ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        for (const m of expected) expect(allow, `${method} ${url}: Allow ${allow.join(', ')}`).toContain(m);
        expect(allow, `${method} ${url}`).not.toContain(method);
      }
    }
  });

  it('answer 405 for HEAD on a POST-only path', async () => {
    const r = await api.request('/api/sips/import', { method: 'HEAD', headers: bearer(t.editor) });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toContain('POST');
  });
});

describe('matching', () => {
  it('answers HEAD on every GET route like GET, without a body', async () => {
    for (const route of ROUTES.filter((r) => r.method === 'GET')) {
      const url = concrete(route.path);
      const get = await api.request(url, { headers: bearer(t.user) });
      const head = await api.request(url, { method: 'HEAD', headers: bearer(t.user) });
      expect(head.status, url).toBe(get.status);
      expect(head.headers.get('content-type'), url).toBe(get.headers.get('content-type'));
      expect(head.text, url).toBe('');
    }
  });

  it('answers a method no route serves with 405 and the methods of the path', async () => {
    const r = await api.request('/api/actors', { method: 'PROPFIND', headers: bearer(t.editor) });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('HEAD, GET, POST');
  });

  it('matches paths case-sensitively, with one trailing slash allowed', async () => {
    for (const p of ['/api/Actors', '/API/actors', '/api/actors//'])
      expect((await api.get(p, t.user)).status, p).toBe(404);
    expect((await api.get('/api/actors/', t.user)).status).toBe(200);
  });

  it('hands the handler the percent-decoded path parameter', async () => {
    const encoded = [...String(actorId)].map((c) => `%3${c}`).join('');
    const r = await api.get(`/api/actors/${encoded}`, t.user);
    expect(r.status).toBe(200);
    expect(dataOf<{ id: number }>(r).id).toBe(actorId);
  });
});

describe('no 5xx for odd input, anywhere in the matrix', () => {
  const ODD_VALUES = [
    '',
    ' ',
    '%00',
    '-1',
    '0',
    '1e309',
    'NaN',
    'Infinity',
    '1.5',
    '99999999999999999999',
    '[]',
    '{}',
    '%',
    '_',
    '%5C',
    '%27%20OR%201%3D1--',
    '%F0%9F%98%80',
    '%E0%A4%A',
    'a'.repeat(1100),
  ];
  const PARAMS = [...QUERY_PARAMETERS, 'page[]', 'search[a]'];

  it('query parameters on every GET route', async () => {
    const gets = ROUTES.filter((r) => r.method === 'GET');
    const problems: string[] = [];
    const tasks: (() => Promise<void>)[] = [];
    for (const [i, route] of gets.entries()) {
      // Every odd value and every parameter once on each route (a fixed sample, not the product:
      // the query is parsed the same way on every route); the pairing shifts from route to route.
      for (const [param, value] of sampledPairs(PARAMS, ODD_VALUES, i)) {
        tasks.push(async () => {
          const r = await send(daemon(), `${concrete(route.path)}?${param}=${value}`, { headers: bearer(t.user) });
          problems.push(...replyProblems(r));
        });
      }
      tasks.push(async () => {
        const r = await send(
          daemon(),
          `${concrete(route.path)}?page=1&page=2&perPage=3&perPage=4&format=json&format=select2&ids=1&ids=2`,
          { headers: bearer(t.user) },
        );
        problems.push(...replyProblems(r));
      });
    }
    await inPool(tasks, 8);
    expect(problems).toEqual([]);
  });

  it('odd ids in the path of every {id} route', async () => {
    const problems: string[] = [];
    const routes = ROUTES.filter((r) => r.path.includes(':id'));
    await inPool(
      routes.flatMap((route) =>
        [
          '0',
          '-1',
          '1.5',
          'abc',
          '%00',
          '%E0%A4%A',
          '99999999999999999999',
          '2147483648',
          '2147483647',
          '1e3',
          '0x1',
          '%20',
          '..',
          'null',
          'reconcile',
        ].map((id) => async () => {
          const r = await send(daemon(), route.path.replace(':id', id), {
            method: route.method,
            headers: { ...bearer(t.editor), ...(route.method === 'GET' ? {} : { 'Content-Type': 'application/json' }) },
            ...(route.method === 'GET' ? {} : { body: '{}' }),
          });
          problems.push(...replyProblems(r));
          // `..` is resolved by the client before sending: /api/actors/reconcile/preview/..
          // asks for /api/actors/reconcile, another route, whose 200 says nothing about ids.
          const sent = new URL(route.path.replace(':id', id), 'http://h').pathname;
          const reachedRoute = sent === route.path.replace(':id', id);
          if (r.status === 200 && reachedRoute && id !== 'reconcile' && id !== '2147483647')
            problems.push(`${route.method} ${route.path.replace(':id', id)}: 200`);
        }),
      ),
      8,
    );
    expect(problems).toEqual([]);
  });

  it('odd JSON field values on every write route', async () => {
    const ODD_JSON: unknown[] = [
      null,
      0,
      -1,
      1.5,
      1e308,
      true,
      '',
      ' ',
      'x'.repeat(70_000),
      '\u0000',
      '\ud800',
      [],
      {},
      [[]],
      { a: { b: {} } },
      ['x', 1],
      '2147483648',
    ];
    const FIELDS: Record<string, { path: string; method: string; base: Record<string, unknown>; fields: string[] }> = {
      actors: {
        path: '/api/actors',
        method: 'POST',
        base: { name: 'Odd' },
        fields: [...ACTOR_FIELDS, 'id', 'created_at', '__proto__', 'constructor'],
      },
      actorPut: {
        path: '',
        method: 'PUT',
        base: {},
        fields: [...ACTOR_FIELDS, 'updated_at'],
      },
      places: {
        path: '/api/places',
        method: 'POST',
        base: { name: 'Odd' },
        fields: PLACE_FIELDS,
      },
      placeChange: { path: '', method: 'POST', base: {}, fields: ['name', 'location', 'country_code', 'geonames'] },
      usage: {
        path: '/api/ai-cataloging/usage',
        method: 'POST',
        base: { provider: 'x', model: 'y', tokens_in: 1, tokens_out: 2, cost_chf: 0.01, success: true },
        fields: [
          ...['provider', 'model', 'tokens_in', 'tokens_out', 'cost_chf', 'success'],
          ...['latency_ms', 'profile_slug', 'entry_uuid', 'source'],
        ],
      },
      failed: { path: '/api/ingest/failed/999999', method: 'POST', base: {}, fields: ['reason'] },
      reconcile: { path: '/api/actors/reconcile', method: 'POST', base: {}, fields: ['queries'] },
    };
    (FIELDS.actorPut as { path: string }).path = `/api/actors/${actorId}`;
    (FIELDS.placeChange as { path: string }).path = `/api/places/${placeId}`;
    const problems: string[] = [];
    const tasks: (() => Promise<void>)[] = [];
    // Each field with every other odd value, alternating from field to field (a fixed sample, not
    // the product: one validator judges every field of a body): every value still meets half of
    // each route's fields, every field half of the values.
    for (const spec of Object.values(FIELDS)) {
      for (const [f, field] of spec.fields.entries()) {
        for (const value of ODD_JSON.filter((_, v) => (v + f) % 2 === 0)) {
          tasks.push(async () => {
            const body = JSON.stringify({ ...spec.base, [field]: value });
            const r = await send(daemon(), spec.path, {
              method: spec.method,
              body,
              headers: { 'Content-Type': 'application/json', ...bearer(t.editor) },
            });
            problems.push(...replyProblems(r).map((p) => `${field}=${JSON.stringify(value)?.slice(0, 30)}: ${p}`));
          });
        }
      }
    }
    await inPool(tasks, 6);
    expect(problems).toEqual([]);
  });

  it('odd request headers', async () => {
    const cases: Record<string, string>[] = [
      { 'Content-Type': 'application/json; charset=bogus' },
      { 'Content-Type': 'application/json; charset=utf-16' },
      { 'Content-Type': 'application/vnd.api+json' },
      { 'Content-Type': 'application/x-www-form-urlencoded; charset=latin1' },
      { 'Content-Type': 'multipart/form-data; boundary=' },
      { 'Content-Type': '' },
      { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' },
      { 'Content-Encoding': 'deflate', 'Content-Type': 'application/json' },
      { 'Content-Encoding': 'identity, br', 'Content-Type': 'application/json' },
      { Accept: 'application/xml' },
      { Host: 'evil"host' },
      { 'X-Forwarded-Proto': 'gopher', 'X-Forwarded-Host': '<script>' },
    ];
    const problems: string[] = [];
    for (const headers of cases) {
      for (const p of ['/api/actors', '/api/places/reconcile', '/api/ai-cataloging/usage']) {
        const r = await send(daemon(), p, {
          method: 'POST',
          body: '{"name": "Header test"}',
          headers: { ...headers, ...bearer(t.editor) },
        });
        problems.push(...replyProblems(r).map((x) => `${JSON.stringify(headers)}: ${x}`));
      }
      const get = await send(daemon(), '/api/actors/reconcile', { headers: { ...headers, ...bearer(t.user) } });
      problems.push(...replyProblems(get));
    }
    expect(problems).toEqual([]);
  });
});
