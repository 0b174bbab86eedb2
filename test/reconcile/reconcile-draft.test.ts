// Reconciliation API 1.0-draft beside 0.2 (docs/archive-tools.md), at /api/{kind}/reconcile/1.0-draft,
// through a real daemon: the manifest, POST /match answering 0.2's candidates and scores for the
// same questions (and `id` conditions), clear 4xx for invalid batches, suggest with `offset`,
// the preview by `?id=`, data extension as the draft shapes it, the access rules of 0.2, and no
// JSONP. The answers' shapes are checked against the draft's schemas in
// reconcile-draft-schemas.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { applySettings, bearer, dataOf, fieldsOf, loadCatalog, send, type Reply } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, daemon, api, t } = useDaemonWithTokens();
const KINDS = ['actors', 'places', 'keywords'] as const;
type Kind = (typeof KINDS)[number];
const root = (kind: Kind) => `/api/${kind}/reconcile/1.0-draft`;
const ids: Record<string, number> = {};

interface Candidate {
  id: string;
  name: string;
  score: number;
  match: boolean;
}

beforeAll(async () => {
  await loadCatalog(cli(), 'draft.json', {
    actors: [
      {
        name: 'Schiller, Friedrich',
        type: 'person',
        alternative_names: ['Friedrich von Schiller'],
        gnd: '118607626',
        date_start: '1759-11-10',
      },
      { name: 'Schiller, Friedrich', type: 'family' },
      { name: 'Goethe, Johann Wolfgang von', type: 'person', date_start: '1749' },
      { name: 'Goethe-Institut', type: 'corporate_body' },
    ],
    places: [
      { name: 'Zürich', city: 'Zürich', country_code: 'CH', geonames: '2657896', location: '47.37 8.54' },
      { name: 'Bern', country_code: 'CH' },
    ],
    keywords: [{ name: 'Letters', gnd: '4008849-2' }, 'Manuscripts'],
  });
  await applySettings(cli(), { public_access: false, public_api: false });
  for (const kind of KINDS)
    for (const r of dataOf<{ id: number; name: string; type?: string }[]>(
      await api.get(`/api/${kind}?perPage=100`, t.user),
    ))
      ids[`${kind}:${r.name}${r.type === 'family' ? ' (family)' : ''}`] = r.id;
});

const idOf = (key: string) => {
  const id = ids[key];
  if (id === undefined) throw new Error(`no record ${key}`);
  return String(id);
};

/** A POST with a body; `token` '' sends none. */
const postJson = (path: string, value: unknown, token: string = t.user, type = 'application/json') =>
  api.request(path, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': type },
    body: typeof value === 'string' ? value : JSON.stringify(value),
  });

async function match(kind: Kind, queries: unknown[]): Promise<Candidate[][]> {
  const r = await postJson(`${root(kind)}/match`, { queries });
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  const { results } = r.body as { results: { candidates: Candidate[] }[] };
  expect(results).toHaveLength(queries.length);
  return results.map((x) => x.candidates);
}

async function match02(kind: Kind, queries: Record<string, unknown>): Promise<Record<string, Candidate[]>> {
  const r = await postJson(`/api/${kind}/reconcile`, { queries });
  expect(r.status, r.text).toBe(200);
  return Object.fromEntries(
    Object.entries(r.body as Record<string, { result: Candidate[] }>).map(([k, v]) => [k, v.result]),
  );
}

const name = (propertyValue: unknown) => ({ matchType: 'name', propertyValue });
const prop = (propertyId: string, propertyValue: unknown) => ({ matchType: 'property', propertyId, propertyValue });
const byId = (propertyValue: unknown) => ({ matchType: 'id', propertyValue });

describe('GET /api/{kind}/reconcile/1.0-draft: the manifest', () => {
  it('names the draft, a view template for every register, boolean suggest, the preview size and batchSize', async () => {
    for (const kind of KINDS) {
      const r = await api.get(root(kind), t.user);
      expect(r.status).toBe(200);
      const m = r.body as Record<string, unknown>;
      const origin = new URL(daemon().url).origin;
      expect(m).toMatchObject({
        versions: ['1.0-draft'],
        name: `archivectl ${kind}`,
        preview: { width: 400, height: 200 },
        suggest: { entity: true, property: true, type: true },
        extend: { proposeProperties: true, propertySettings: [] },
        batchSize: 50,
        standardizedScore: true,
      });
      // Keywords have no page of their own: their view is the preview.
      expect((m.view as { url: string }).url).toBe(
        kind === 'keywords' ? `${origin}${root(kind)}/preview?id={id}` : `${origin}/api/${kind}/{id}`,
      );
      // 0.2's fields are gone: no identifier or schema space, no sub-service URLs.
      for (const gone of ['identifierSpace', 'schemaSpace']) expect(m).not.toHaveProperty(gone);
      expect(JSON.stringify(m.suggest)).not.toContain('service_url');
      // The 0.2 manifest is unchanged beside it.
      const old = (await api.get(`/api/${kind}/reconcile`, t.user)).body as { versions: string[] };
      expect(old.versions).toEqual(['0.1', '0.2']);
    }
  });

  it('says how to send a token while queries need one, and answers HEAD', async () => {
    const closed = (await api.get(root('places'), t.user)).body as { authentication?: unknown };
    expect(closed.authentication).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: expect.stringContaining('Bearer') as unknown,
    });
    const head = await api.head(root('places'), t.user);
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('has no JSONP: a callback is not wrapped around any answer', async () => {
    for (const path of [
      root('actors'),
      `${root('actors')}/suggest/entity?prefix=schil`,
      `${root('actors')}/extend/propose?type=person`,
    ]) {
      const r = await api.get(`${path}${path.includes('?') ? '&' : '?'}callback=cb`, t.user);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(r.text.startsWith('{'), path).toBe(true);
    }
  });
});

describe('POST /api/{kind}/reconcile/1.0-draft/match', () => {
  it("answers 0.2's candidates and scores for the same questions, in the batch's order", async () => {
    const pairs: [Kind, Record<string, unknown>, Record<string, unknown>][] = [
      ['actors', { conditions: [name('Schiller, Friedrich')] }, { query: 'Schiller, Friedrich' }],
      ['actors', { conditions: [name('Schiler')], limit: 3 }, { query: 'Schiler', limit: 3 }],
      ['actors', { conditions: [name('Friedrich von Schiller')] }, { query: 'Friedrich von Schiller' }],
      ['actors', { conditions: [name('Goethe')], type: 'person' }, { query: 'Goethe', type: 'person' }],
      ['actors', { conditions: [name('Goethe')], type: 'Corporate body' }, { query: 'Goethe', type: 'Corporate body' }],
      [
        'actors',
        { conditions: [name('Schiller'), prop('date_start', '1759-11-10')] },
        { query: 'Schiller', properties: [{ pid: 'date_start', v: '1759-11-10' }] },
      ],
      [
        'actors',
        { conditions: [prop('gnd', 'https://d-nb.info/gnd/118607626')] },
        { properties: [{ pid: 'gnd', v: 'https://d-nb.info/gnd/118607626' }] },
      ],
      ['places', { conditions: [name('Zurich')] }, { query: 'Zurich' }],
      ['places', { conditions: [prop('geonames', 2657896)] }, { properties: [{ pid: 'geonames', v: 2657896 }] }],
      [
        'places',
        { conditions: [prop('country_code', ['ch', { id: 'CH', name: 'Switzerland' }])] },
        { properties: [{ pid: 'country_code', v: ['ch', { id: 'CH', name: 'Switzerland' }] }] },
      ],
      ['keywords', { conditions: [name('letters')] }, { query: 'letters' }],
      ['keywords', { conditions: [name('zzzz')] }, { query: 'zzzz' }],
    ];
    for (const kind of KINDS) {
      const mine = pairs.filter(([k]) => k === kind);
      const draft = await match(
        kind,
        mine.map(([, q]) => q),
      );
      const old = await match02(kind, Object.fromEntries(mine.map(([, , q], i) => [`q${i}`, q])));
      mine.forEach((_, i) => expect(draft[i], `${kind} ${JSON.stringify(mine[i]?.[1])}`).toEqual(old[`q${i}`]));
    }
    // And they are what 0.2 promises: the one exact name matches, namesakes do not.
    const [goethe, namesakes] = await match('actors', [
      { conditions: [name('Goethe, Johann Wolfgang von')] },
      { conditions: [name('Schiller, Friedrich')] },
    ]);
    expect(goethe?.[0]).toMatchObject({ name: 'Goethe, Johann Wolfgang von', score: 100, match: true });
    expect(namesakes?.map((c) => [c.score, c.match])).toEqual([
      [100, false],
      [100, false],
    ]);
  });

  it('finds an entity by an id condition (score 100, a match), alone or with a name or a property', async () => {
    const schiller = idOf('actors:Schiller, Friedrich');
    const [alone, withName, narrowed, many, unknown, none] = await match('actors', [
      { conditions: [byId(schiller)] },
      { conditions: [name('Somebody else entirely'), byId(schiller)] },
      { conditions: [byId(schiller), prop('type', 'family')] },
      { conditions: [byId([schiller, idOf('actors:Goethe-Institut'), 'x'])] },
      { conditions: [byId('999999')] },
      { conditions: [byId(['x', '012', '1e3'])] },
    ]);
    expect(alone).toEqual([expect.objectContaining({ id: schiller, score: 100, match: true })]);
    expect(withName).toEqual([expect.objectContaining({ id: schiller, score: 100, match: true })]);
    expect(narrowed).toEqual([]);
    expect(many?.map((c) => [c.id, c.score, c.match])).toEqual(
      expect.arrayContaining([
        [schiller, 100, false],
        [idOf('actors:Goethe-Institut'), 100, false],
      ]),
    );
    expect(many).toHaveLength(2);
    expect(unknown).toEqual([]);
    expect(none).toEqual([]);
  });

  it("ignores properties the register cannot compare, and the draft's hints it does not act on", async () => {
    const [ignored, onlyUnknown, hinted, limited, empty] = await match('places', [
      { conditions: [name('Bern'), prop('population', 134000)] },
      { conditions: [prop('population', 134000), prop('comment', 'x')] },
      {
        lang: 'de',
        dir: 'ltr',
        conditions: [
          { ...name('Zürich'), lang: 'de', dir: 'auto' },
          { ...prop('city', 'zürich'), required: false, matchQuantifier: 'any', matchQualifier: 'WildcardMatch' },
        ],
      },
      { conditions: [prop('country_code', 'CH')], limit: 1 },
      { conditions: [name('')] },
    ]);
    expect(ignored?.[0]).toMatchObject({ name: 'Bern', score: 100, match: true });
    expect(onlyUnknown).toEqual([]);
    expect(hinted?.map((c) => c.name)).toEqual(['Zürich']);
    expect(limited).toHaveLength(1);
    expect(limited?.[0]?.score).toBe(50);
    expect(empty).toEqual([]);
    expect(await match('places', [])).toEqual([]);
  });

  it('answers at most 100 candidates for a limit up to 1,000,000 (more is a 422)', async () => {
    const [asked] = await match('places', [{ conditions: [prop('country_code', 'CH')], limit: 1_000_000 }]);
    const [five] = await match('places', [{ conditions: [prop('country_code', 'CH')] }]);
    expect(asked?.length).toBeGreaterThan(0);
    expect(asked?.length).toBeLessThanOrEqual(100);
    expect(asked?.slice(0, five?.length)).toEqual(five);
  });

  it('refuses an invalid batch as a whole with 422 naming every problem', async () => {
    const cases: [unknown, string[]][] = [
      [[{ conditions: [name('x')] }], ['queries']],
      [{ q0: { query: 'Zürich' } }, ['queries']],
      [{ queries: { q0: {} } }, ['queries']],
      [{ queries: ['x', null] }, ['queries.0', 'queries.1']],
      [{ queries: [{ limit: 1 }] }, ['queries.0.conditions']],
      [{ queries: [{ conditions: [] }] }, ['queries.0.conditions']],
      [{ queries: [{ conditions: Array.from({ length: 23 }, () => name('x')) }] }, ['queries.0.conditions']],
      [{ queries: [{ query: 'x', conditions: [name('x')] }] }, ['queries.0.query']],
      [{ queries: [{ conditions: [{ propertyValue: 'x' }] }] }, ['queries.0.conditions.0.matchType']],
      [
        { queries: [{ conditions: [{ matchType: 'label', propertyValue: 'x' }] }] },
        ['queries.0.conditions.0.matchType'],
      ],
      [{ queries: [{ conditions: [{ matchType: 'name' }] }] }, ['queries.0.conditions.0.propertyValue']],
      [{ queries: [{ conditions: [name(['a', 'b'])] }] }, ['queries.0.conditions.0.propertyValue']],
      [{ queries: [{ conditions: [name('x'), name('y')] }] }, ['queries.0.conditions.1']],
      [{ queries: [{ conditions: [byId('1'), byId('2')] }] }, ['queries.0.conditions.1']],
      [{ queries: [{ conditions: [name('x'.repeat(1001))] }] }, ['queries.0.conditions.0.propertyValue']],
      [{ queries: [{ conditions: [name('a\u0001')] }] }, ['queries.0.conditions.0.propertyValue']],
      [
        { queries: [{ conditions: [{ matchType: 'property', propertyValue: 'x' }] }] },
        ['queries.0.conditions.0.propertyId'],
      ],
      [{ queries: [{ conditions: [prop('city', [{ label: 'x' }])] }] }, ['queries.0.conditions.0.propertyValue']],
      [
        {
          queries: [
            {
              conditions: [
                prop(
                  'city',
                  Array.from({ length: 21 }, () => 'x'),
                ),
              ],
            },
          ],
        },
        ['queries.0.conditions.0.propertyValue'],
      ],
      [
        { queries: [{ conditions: [{ ...prop('city', 'x'), matchQuantifier: 'all' }] }] },
        ['queries.0.conditions.0.matchQuantifier'],
      ],
      [
        { queries: [{ conditions: [{ ...prop('city', 'x'), matchQuantifier: 'none' }] }] },
        ['queries.0.conditions.0.matchQuantifier'],
      ],
      [{ queries: [{ conditions: [{ ...prop('city', 'x'), required: 'yes' }] }] }, ['queries.0.conditions.0.required']],
      [
        { queries: [{ conditions: [{ ...prop('city', 'x'), matchQualifier: 1 }] }] },
        ['queries.0.conditions.0.matchQualifier'],
      ],
      [{ queries: [{ conditions: [{ ...name('x'), dir: 'up' }] }] }, ['queries.0.conditions.0.dir']],
      [{ queries: [{ conditions: [name('x')], type: ['place', 'x'] }] }, ['queries.0.type']],
      [{ queries: [{ conditions: [name('x')], limit: 0 }] }, ['queries.0.limit']],
      [{ queries: [{ conditions: [name('x')], limit: 1.5 }] }, ['queries.0.limit']],
      [{ queries: [{ conditions: [name('x')], limit: '5' }] }, ['queries.0.limit']],
      [{ queries: [{ conditions: [name('x')], limit: 1_000_001 }] }, ['queries.0.limit']],
      [{ queries: [{ conditions: [name('x')], type: 'x'.repeat(256) }] }, ['queries.0.type']],
      [
        { queries: [{ conditions: [{ ...name('x'), propertyId: 'x'.repeat(256) }] }] },
        ['queries.0.conditions.0.propertyId'],
      ],
      [{ queries: [{ conditions: [{ ...prop('x'.repeat(256), 'x') }] }] }, ['queries.0.conditions.0.propertyId']],
      [
        { queries: [{ conditions: [{ ...prop('city', 'x'), matchQualifier: 'x'.repeat(256) }] }] },
        ['queries.0.conditions.0.matchQualifier'],
      ],
      [{ queries: [{ conditions: [name('x')], lang: 5 }] }, ['queries.0.lang']],
      [{ queries: [{ conditions: [name('ok')] }, { conditions: [name('x')], limit: -1 }] }, ['queries.1.limit']],
      [
        { queries: [{ conditions: [{ matchType: 'property', propertyId: 'city', propertyValue: [[[[['x']]]]] }] }] },
        ['queries'],
      ],
    ];
    for (const [body, fields] of cases) {
      const r = await postJson(`${root('places')}/match`, body);
      const named = fieldsOf(r);
      expect(Object.keys(named).sort(), JSON.stringify(body).slice(0, 200)).toEqual([...fields].sort());
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    }
    // At most 20 problems are named, however many queries are wrong.
    const many = await postJson(`${root('places')}/match`, { queries: Array.from({ length: 50 }, () => ({})) });
    expect(Object.keys(fieldsOf(many))).toHaveLength(20);
  });

  it('answers 413 above batchSize, 415 for a form or no JSON, 400 for malformed JSON, 413 above the body limit', async () => {
    const big = { queries: Array.from({ length: 51 }, () => ({ conditions: [name('x')] })) };
    const tooMany = await postJson(`${root('actors')}/match`, big);
    expect(tooMany.status).toBe(413);
    expect((tooMany.body as { error: string }).error).toMatch(/at most 50 queries/);
    const full = await postJson(`${root('actors')}/match`, { queries: big.queries.slice(0, 50) });
    expect(full.status).toBe(200);
    const form = await postJson(
      `${root('actors')}/match`,
      `queries=${encodeURIComponent(JSON.stringify(big.queries.slice(0, 1)))}`,
      t.user,
      'application/x-www-form-urlencoded',
    );
    expect(form.status).toBe(415);
    expect((form.body as { error: string }).error).toMatch(/application\/json/);
    const none = await api.request(`${root('actors')}/match`, { method: 'POST', headers: bearer(t.user) });
    expect(Object.keys(fieldsOf(none))).toEqual(['queries']);
    expect((await postJson(`${root('actors')}/match`, '{"queries": [')).status).toBe(400);
    const huge = await postJson(`${root('actors')}/match`, {
      queries: [{ conditions: [name('x'.repeat(1_100_000))] }],
    });
    expect(huge.status).toBe(413);
  });
});

describe('GET /api/{kind}/reconcile/1.0-draft/suggest/{entity,property,type}', () => {
  it("answers 0.2's suggestions, paged with offset (cursor is 0.2's name)", async () => {
    for (const [kind, prefix] of [
      ['actors', 'schil'],
      ['actors', 'goethe'],
      ['places', 'z'],
      ['keywords', ''],
      ['keywords', 'let'],
    ] as [Kind, string][]) {
      for (const service of ['entity', 'property', 'type']) {
        const q = `prefix=${encodeURIComponent(prefix)}&limit=1`;
        for (const offset of [0, 1]) {
          const draft = await api.get(`${root(kind)}/suggest/${service}?${q}&offset=${offset}`, t.user);
          const old = await api.get(`/api/${kind}/reconcile/suggest/${service}?${q}&cursor=${offset}`, t.user);
          expect(draft.status).toBe(200);
          expect(draft.body, `${kind} ${service} ${prefix} ${offset}`).toEqual(old.body);
        }
      }
    }
    const first = (await api.get(`${root('actors')}/suggest/entity?prefix=goethe&limit=1`, t.user)).body;
    const second = (await api.get(`${root('actors')}/suggest/entity?prefix=goethe&limit=1&offset=1`, t.user)).body;
    expect(first).not.toEqual(second);
    // An entity's id finds it (the draft's MUST).
    const schiller = idOf('actors:Schiller, Friedrich');
    const byIdPrefix = (await api.get(`${root('actors')}/suggest/entity?prefix=${schiller}`, t.user)).body as {
      result: { id: string }[];
    };
    expect(byIdPrefix.result.map((r) => r.id)).toContain(schiller);
  });

  it('refuses bad parameters with 422 naming them', async () => {
    for (const [query, field] of [
      ['prefix=a&offset=-1', 'offset'],
      ['prefix=a&offset=x', 'offset'],
      ['prefix=a&limit=0', 'limit'],
      ['prefix=a&limit=101', 'limit'],
      ['prefix=a&prefix=b', 'prefix'],
      [`prefix=${'x'.repeat(256)}`, 'prefix'],
      ['prefix=%01', 'prefix'],
    ]) {
      const r = await api.get(`${root('actors')}/suggest/entity?${query}`, t.user);
      expect(Object.keys(fieldsOf(r)), query).toEqual([field]);
    }
  });
});

describe('GET /api/{kind}/reconcile/1.0-draft/preview?id=', () => {
  it("answers 0.2's preview page, with its headers; 404 for no such entity; 422 without one id", async () => {
    for (const kind of KINDS) {
      const id = Object.entries(ids).find(([k]) => k.startsWith(`${kind}:`))?.[1] as number;
      const draft = await api.get(`${root(kind)}/preview?id=${id}`, t.user);
      const old = await api.get(`/api/${kind}/reconcile/preview/${id}`, t.user);
      expect(draft.status).toBe(200);
      expect(draft.text).toBe(old.text);
      for (const h of ['content-type', 'content-security-policy', 'x-content-type-options', 'referrer-policy'])
        expect(draft.headers.get(h), h).toBe(old.headers.get(h));
    }
    expect((await api.get(`${root('actors')}/preview?id=999999`, t.user)).status).toBe(404);
    expect((await api.get(`${root('actors')}/preview?id=x`, t.user)).status).toBe(404);
    for (const query of ['', '?id=', '?id=1&id=2'])
      expect(Object.keys(fieldsOf(await api.get(`${root('actors')}/preview${query}`, t.user))), query).toEqual(['id']);
  });
});

describe('data extension: GET …/extend/propose and POST …/extend', () => {
  it("proposes 0.2's properties for a type, and needs the type", async () => {
    const draft = await api.get(`${root('actors')}/extend/propose?type=person&limit=2`, t.user);
    const old = await api.get('/api/actors/reconcile/properties?type=person&limit=2', t.user);
    expect(draft.status).toBe(200);
    expect(draft.body).toEqual(old.body);
    expect((draft.body as { properties: unknown[] }).properties).toHaveLength(2);
    expect(
      ((await api.get(`${root('places')}/extend/propose?type=nothing`, t.user)).body as { properties: [] }).properties,
    ).toEqual([]);
    for (const query of ['', '?type=', '?limit=2'])
      expect(Object.keys(fieldsOf(await api.get(`${root('actors')}/extend/propose${query}`, t.user))), query).toEqual([
        'type',
      ]);
    expect(
      Object.keys(fieldsOf(await api.get(`${root('actors')}/extend/propose?type=person&limit=0`, t.user))),
    ).toEqual(['limit']);
  });

  it("answers 0.2's values as the draft's rows, in the order asked, empty for unknown ids", async () => {
    const zurich = idOf('places:Zürich');
    const query = {
      ids: ['999999', zurich, 'x', zurich],
      properties: [{ id: 'geonames' }, { id: 'latitude', settings: {} }, { id: 'city' }, { id: 'geonames' }],
    };
    const r = await postJson(`${root('places')}/extend`, query);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      meta: [
        { id: 'geonames', name: 'GeoNames' },
        { id: 'latitude', name: 'Latitude' },
        { id: 'city', name: 'City' },
      ],
      rows: [
        {
          id: '999999',
          properties: [
            { id: 'geonames', values: [] },
            { id: 'latitude', values: [] },
            { id: 'city', values: [] },
          ],
        },
        {
          id: zurich,
          properties: [
            { id: 'geonames', values: [{ str: '2657896' }] },
            { id: 'latitude', values: [{ float: 47.37 }] },
            { id: 'city', values: [{ str: 'Zürich' }] },
          ],
        },
        {
          id: 'x',
          properties: [
            { id: 'geonames', values: [] },
            { id: 'latitude', values: [] },
            { id: 'city', values: [] },
          ],
        },
      ],
    });
    // The same values as 0.2's answer.
    const old = await postJson('/api/places/reconcile', { extend: query });
    const oldRows = (old.body as { rows: Record<string, Record<string, unknown>> }).rows;
    const rows = (r.body as { rows: { id: string; properties: { id: string; values: unknown }[] }[] }).rows;
    for (const row of rows)
      for (const p of row.properties) expect(p.values, `${row.id} ${p.id}`).toEqual(oldRows[row.id]?.[p.id]);
  });

  it('refuses unknown properties and malformed queries with 422, too many ids with 413, a form with 415', async () => {
    const at = `${root('keywords')}/extend`;
    for (const [body, fields] of [
      [{ ids: ['1'], properties: [{ id: 'population' }] }, ['properties.0.id']],
      [{ ids: '1', properties: [] }, ['ids']],
      [{ ids: [1], properties: [] }, ['ids']],
      [{ properties: [{ id: 'gnd' }] }, ['ids']],
      [{ ids: [] }, ['properties']],
      [{ ids: [], properties: [{ id: 'gnd', settings: 'x' }] }, ['properties.0.settings']],
      [[{ ids: [] }], ['body']],
      [{ ids: [], properties: [{ id: 'gnd', settings: { a: { b: { c: {} } } } }] }, ['body']],
    ] as [unknown, string[]][]) {
      const named = fieldsOf(await postJson(at, body));
      expect(Object.keys(named).sort(), JSON.stringify(body)).toEqual(fields);
    }
    expect(Object.keys(fieldsOf(await api.request(at, { method: 'POST', headers: bearer(t.user) })))).toEqual(['body']);
    const tooMany = await postJson(at, { ids: Array.from({ length: 101 }, (_, i) => String(i + 1)), properties: [] });
    expect(tooMany.status).toBe(413);
    const form = await postJson(at, 'ids=1', t.user, 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
  });
});

describe('access and CORS', () => {
  const origin = { Origin: 'https://testbench.example' };
  const matchBody = { queries: [{ conditions: [name('Zürich')] }] };

  it("follows 0.2's rules: GETs open with public_api, POSTs (reads) only with public_access; tokens of any role", async () => {
    const gets = [
      root('places'),
      `${root('places')}/suggest/entity?prefix=z`,
      `${root('places')}/suggest/property?prefix=`,
      `${root('places')}/suggest/type?prefix=`,
      `${root('places')}/preview?id=${idOf('places:Zürich')}`,
      `${root('places')}/extend/propose?type=place`,
    ];
    const posts: [string, unknown][] = [
      [`${root('places')}/match`, matchBody],
      [`${root('places')}/extend`, { ids: [idOf('places:Zürich')], properties: [{ id: 'name' }] }],
    ];
    const statuses = async (token: string | undefined) => [
      ...(await Promise.all(gets.map(async (p) => (await send(daemon(), p, { headers: bearer(token) })).status))),
      ...(await Promise.all(posts.map(async ([p, b]) => (await postJson(p, b, token ?? '')).status))),
    ];
    const all = (n: number) => Array.from({ length: gets.length + posts.length }, () => n);
    for (const [combo, anonymous] of [
      [{ public_access: false, public_api: false }, all(401)],
      [{ public_access: false, public_api: true }, [...gets.map(() => 200), ...posts.map(() => 401)]],
      [{ public_access: true, public_api: false }, all(200)],
    ] as const) {
      await applySettings(cli(), combo);
      expect(await statuses(undefined), JSON.stringify(combo)).toEqual(anonymous);
      expect(await statuses(t.user), JSON.stringify(combo)).toEqual(all(200));
    }
    await applySettings(cli(), { public_access: false, public_api: false });
    const refused = await postJson(`${root('places')}/match`, matchBody, 'arc_forgedforgedforgedforged');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('answers a preflight of POST /match with JSON and a token, and its answers are readable cross-origin', async () => {
    const pre = await send(daemon(), `${root('actors')}/match`, {
      method: 'OPTIONS',
      headers: {
        ...origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toBe('POST');
    const answers: Reply[] = [
      await api.request(`${root('actors')}/match`, {
        method: 'POST',
        headers: { ...origin, ...bearer(t.user), 'Content-Type': 'application/json' },
        body: JSON.stringify(matchBody),
      }),
      await api.request(`${root('actors')}/match`, { method: 'GET', headers: { ...origin, ...bearer(t.user) } }),
      await api.request(`${root('actors')}/match`, { method: 'POST', headers: origin, body: '{}' }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 405, 401]);
    for (const a of answers) expect(a.headers.get('access-control-allow-origin')).toBe('*');
    expect(answers[1]?.headers.get('allow')).toBe('POST');
  });
});
