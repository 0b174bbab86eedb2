// The services a reconciliation manifest points to (Reconciliation 0.2), through a real daemon,
// for actors, places and keywords: suggest (entities, properties, types), the HTML preview, and
// data extension (property proposals and extend queries, by GET and POST).
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, dataOf, fieldsOf, loadCatalog, sampledPairs, type Reply } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, api, t } = useDaemonWithTokens();
const ids: Record<string, number> = {};

interface SuggestAnswer {
  result: { id: string; name: string; description?: string; notable?: { id: string; name: string }[] }[];
}
interface ExtendAnswer {
  meta: { id: string; name: string }[];
  rows: Record<string, Record<string, ({ str: string } | { float: number })[]>>;
}

beforeAll(async () => {
  await loadCatalog(cli(), 'services.json', {
    actors: [
      {
        name: 'Schiller, Friedrich',
        type: 'person',
        alternative_names: ['Friedrich von Schiller', 'F. Schiller'],
        date_start: '1759-11-10',
        date_end: '1805-05-09',
        gnd: '118607626',
        comment: 'Poet',
      },
      { name: 'Schillerstiftung', type: 'corporate_body' },
      { name: 'Goethe, Johann Wolfgang von', type: 'person', alternative_names: ['Schillers Freund'] },
      { name: 'Evil <b onmouseover="alert(1)">Name</b> & "Quotes"', type: 'group' },
    ],
    places: [
      {
        name: 'Zürich',
        city: 'Zürich',
        state: 'ZH',
        country_code: 'CH',
        location: '47.37 8.54',
        gnd: '4068038-8',
        geonames: '2657896',
        alternative_names: ['Zurich'],
      },
      { name: 'Bern', country_code: 'CH' },
    ],
    keywords: [{ name: 'Letters', gnd: '4008849-2' }, 'Manuscripts'],
  });
  for (const [kind, search] of [
    ['actors', 'schiller, friedrich'],
    ['places', 'zürich'],
    ['keywords', 'letters'],
    ['evil', 'evil'],
  ] as const) {
    const list = dataOf<{ id: number; name: string }[]>(
      await api.get(`/api/${kind === 'evil' ? 'actors' : kind}?search=${encodeURIComponent(search)}`, t.user),
    );
    ids[kind] = (list[0] as { id: number }).id;
  }
});

const suggest = async (path: string): Promise<SuggestAnswer> => {
  const r = await api.get(path, t.user);
  expect(r.status, `${path}: ${r.text.slice(0, 200)}`).toBe(200);
  return r.body as SuggestAnswer;
};

describe('suggest: entities', () => {
  it('finds names beginning with the typed text first, then words, substrings and alternative names', async () => {
    const a = await suggest('/api/actors/reconcile/suggest/entity?prefix=schill');
    expect(a.result.map((r) => r.name)).toEqual([
      'Schiller, Friedrich',
      'Schillerstiftung',
      'Goethe, Johann Wolfgang von',
    ]);
    expect(a.result[0]).toMatchObject({
      id: String(ids.actors),
      description: 'Person, 1759-11-10–1805-05-09',
      notable: [{ id: 'person', name: 'Person' }],
    });
    const byWord = await suggest('/api/actors/reconcile/suggest/entity?prefix=friedr');
    expect(byWord.result[0]?.name).toBe('Schiller, Friedrich');
    const accents = await suggest('/api/places/reconcile/suggest/entity?prefix=zur');
    expect(accents.result.map((r) => r.name)).toEqual(['Zürich']);
    const keywords = await suggest('/api/keywords/reconcile/suggest/entity?prefix=LETT');
    expect(keywords.result).toEqual([
      { id: String(ids.keywords), name: 'Letters', notable: [{ id: 'keyword', name: 'Keyword' }] },
    ]);
  });

  it('finds an entity by its id, pages with cursor and limit, filters by type, and suggests nothing for nothing', async () => {
    expect((await suggest(`/api/places/reconcile/suggest/entity?prefix=${ids.places}`)).result[0]?.name).toBe('Zürich');
    const all = (await suggest('/api/actors/reconcile/suggest/entity?prefix=schill')).result.map((r) => r.id);
    const page = (await suggest('/api/actors/reconcile/suggest/entity?prefix=schill&cursor=1&limit=1')).result.map(
      (r) => r.id,
    );
    expect(page).toEqual(all.slice(1, 2));
    expect(
      (await suggest('/api/actors/reconcile/suggest/entity?prefix=schill&type=corporate_body')).result.map(
        (r) => r.name,
      ),
    ).toEqual(['Schillerstiftung']);
    expect((await suggest('/api/actors/reconcile/suggest/entity?query=schillerst')).result.map((r) => r.name)).toEqual([
      'Schillerstiftung',
    ]);
    expect((await suggest('/api/actors/reconcile/suggest/entity')).result).toEqual([]);
    expect((await suggest('/api/actors/reconcile/suggest/entity?prefix=%25_')).result).toEqual([]);
  });

  it('refuses bad parameters with 422 naming them', async () => {
    for (const [q, field] of [
      ['prefix=a&prefix=b', 'prefix'],
      ['prefix=%07', 'prefix'],
      [`prefix=${'x'.repeat(256)}`, 'prefix'],
      ['prefix=a&cursor=-1', 'cursor'],
      ['prefix=a&cursor=x', 'cursor'],
      ['prefix=a&limit=0', 'limit'],
      ['prefix=a&limit=101', 'limit'],
    ] as const) {
      expect(fieldsOf(await api.get(`/api/actors/reconcile/suggest/entity?${q}`, t.user)), q).toHaveProperty(field);
    }
  });
});

describe('suggest: properties and types', () => {
  it('suggests the properties of the register', async () => {
    expect((await suggest('/api/places/reconcile/suggest/property?prefix=geo')).result).toEqual([
      { id: 'geonames', name: 'GeoNames', description: expect.any(String) as string },
    ]);
    expect((await suggest('/api/actors/reconcile/suggest/property?prefix=end')).result.map((r) => r.id)).toEqual([
      'date_end',
    ]);
    expect((await suggest('/api/keywords/reconcile/suggest/property')).result.map((r) => r.id)).toEqual([
      'name',
      'gnd',
    ]);
  });

  it('suggests the types of the register', async () => {
    expect((await suggest('/api/actors/reconcile/suggest/type?prefix=fam')).result).toEqual([
      { id: 'family', name: 'Family' },
    ]);
    expect((await suggest('/api/places/reconcile/suggest/type?prefix=pl')).result).toEqual([
      { id: 'place', name: 'Place' },
    ]);
    expect((await suggest('/api/keywords/reconcile/suggest/type?prefix=x')).result).toEqual([]);
  });
});

describe('preview', () => {
  const preview = (kind: string, id: number | string): Promise<Reply> =>
    api.get(`/api/${kind}/reconcile/preview/${id}`, t.user);

  it('answers an HTML page naming the entity, without script, for each register', async () => {
    for (const [kind, name] of [
      ['actors', 'Schiller, Friedrich'],
      ['places', 'Zürich'],
      ['keywords', 'Letters'],
    ] as const) {
      const r = await preview(kind, ids[kind] as number);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.text).toContain(`<h1>${name}</h1>`);
      expect(r.text).not.toMatch(/<script/i);
    }
    const place = await preview('places', ids.places as number);
    expect(place.text).toContain('href="https://www.geonames.org/2657896/"');
    expect(place.text).toContain('47.37 8.54');
  });

  it('escapes names', async () => {
    const r = await preview('actors', ids.evil as number);
    expect(r.text).toContain(
      '<h1>Evil &lt;b onmouseover=&quot;alert(1)&quot;&gt;Name&lt;/b&gt; &amp; &quot;Quotes&quot;</h1>',
    );
    expect(r.text).not.toContain('<b ');
  });

  it('answers 404 (JSON) for an id that names no entity', async () => {
    for (const id of ['999999', '0', 'abc', '1.5', '99999999999']) {
      const r = await preview('places', id);
      expect(r.status, id).toBe(404);
    }
  });
});

describe('data extension', () => {
  it('proposes the properties of a type', async () => {
    const r = await api.get('/api/places/reconcile/properties?type=place', t.user);
    const body = r.body as { type: string; properties: { id: string; name: string }[] };
    expect(body.type).toBe('place');
    const placeProperties = [
      ...['name', 'alternative_names', 'city', 'state', 'address', 'country_code', 'location'],
      ...['latitude', 'longitude', 'gnd', 'geonames', 'comment'],
    ];
    expect(body.properties.map((p) => p.id)).toEqual(placeProperties);
    expect(
      ((await api.get('/api/places/reconcile/properties?type=person', t.user)).body as { properties: unknown[] })
        .properties,
    ).toEqual([]);
    expect(fieldsOf(await api.get('/api/places/reconcile/properties?limit=x', t.user))).toHaveProperty('limit');
  });

  it('answers the values of the records, by GET and by POST (form and JSON), empty for unknown ids', async () => {
    const query = {
      ids: [String(ids.actors), '999999', 'nonsense'],
      properties: [{ id: 'gnd' }, { id: 'alternative_names' }, { id: 'date_start' }, { id: 'type' }],
    };
    const viaGet = await api.get(`/api/actors/reconcile?extend=${encodeURIComponent(JSON.stringify(query))}`, t.user);
    const viaForm = await api.request('/api/actors/reconcile', {
      method: 'POST',
      headers: { ...bearer(t.user), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ extend: JSON.stringify(query) }).toString(),
    });
    const viaJson = await api.post('/api/actors/reconcile', { extend: query }, t.user);
    for (const r of [viaGet, viaForm, viaJson]) expect(r.status, r.text).toBe(200);
    expect(viaForm.body).toEqual(viaGet.body);
    expect(viaJson.body).toEqual(viaGet.body);
    const answer = viaGet.body as ExtendAnswer;
    expect(answer.meta).toEqual([
      { id: 'gnd', name: 'GND' },
      { id: 'alternative_names', name: 'Alternative names' },
      { id: 'date_start', name: 'Start date' },
      { id: 'type', name: 'Type' },
    ]);
    expect(answer.rows[String(ids.actors)]).toEqual({
      gnd: [{ str: '118607626' }],
      alternative_names: [{ str: 'Friedrich von Schiller' }, { str: 'F. Schiller' }],
      date_start: [{ str: '1759-11-10' }],
      type: [{ str: 'person' }],
    });
    expect(answer.rows['999999']).toEqual({ gnd: [], alternative_names: [], date_start: [], type: [] });
    expect(answer.rows.nonsense).toEqual({ gnd: [], alternative_names: [], date_start: [], type: [] });
  });

  it('gives places city, country, gnd, geonames and coordinates, and keywords their gnd', async () => {
    const places = (
      await api.post(
        '/api/places/reconcile',
        {
          extend: {
            ids: [String(ids.places)],
            properties: [
              { id: 'city' },
              { id: 'country_code' },
              { id: 'gnd' },
              { id: 'geonames' },
              { id: 'latitude' },
              { id: 'longitude' },
            ],
          },
        },
        t.user,
      )
    ).body as ExtendAnswer;
    expect(places.rows[String(ids.places)]).toEqual({
      city: [{ str: 'Zürich' }],
      country_code: [{ str: 'CH' }],
      gnd: [{ str: '4068038-8' }],
      geonames: [{ str: '2657896' }],
      latitude: [{ float: 47.37 }],
      longitude: [{ float: 8.54 }],
    });
    const keywords = (
      await api.post(
        '/api/keywords/reconcile',
        { extend: { ids: [String(ids.keywords)], properties: [{ id: 'gnd' }, { id: 'name' }] } },
        t.user,
      )
    ).body as ExtendAnswer;
    expect(keywords.rows[String(ids.keywords)]).toEqual({ gnd: [{ str: '4008849-2' }], name: [{ str: 'Letters' }] });
  });

  it('refuses unknown properties and malformed queries with 422, too many ids with 413, and both queries and extend with 422', async () => {
    const bad = [
      { ids: ['1'], properties: [{ id: 'nope' }] },
      { ids: '1', properties: [{ id: 'gnd' }] },
      { ids: [1], properties: [{ id: 'gnd' }] },
      { ids: ['1'] },
      { ids: ['1'], properties: ['gnd'] },
      { ids: ['1'], properties: [{ id: 'gnd', settings: 'x' }] },
      null,
    ];
    for (const extend of bad) {
      const fields = fieldsOf(await api.post('/api/actors/reconcile', { extend }, t.user));
      expect(
        Object.keys(fields).some((k) => k.startsWith('extend')),
        JSON.stringify(extend),
      ).toBe(true);
    }
    expect(fieldsOf(await api.get('/api/actors/reconcile?extend=nope', t.user))).toHaveProperty('extend');
    const many = await api.post(
      '/api/actors/reconcile',
      { extend: { ids: Array.from({ length: 101 }, (_, i) => String(i + 1)), properties: [{ id: 'gnd' }] } },
      t.user,
    );
    expect(many.status).toBe(413);
    expect(
      fieldsOf(await api.post('/api/actors/reconcile', { queries: {}, extend: { ids: [], properties: [] } }, t.user)),
    ).toHaveProperty('queries');
  });
});

describe('no 5xx', () => {
  it('for odd parameters on every service', async () => {
    const paths = ['suggest/entity', 'suggest/property', 'suggest/type', 'properties', ''];
    const odd = ['', '%00', '%E0%A4%A', 'a'.repeat(2000), '__proto__', '%F0%9F%98%80', '1e309', '-1', '[]', '{}'];
    const params = ['prefix', 'query', 'cursor', 'limit', 'type', 'extend', 'callback', 'queries'];
    let shift = 0;
    for (const kind of ['actors', 'places', 'keywords']) {
      for (const p of paths) {
        // Every parameter and every odd value once a service, pairings shifted from service to service.
        for (const [param, v] of sampledPairs(params, odd, shift++)) {
          const url = `/api/${kind}/reconcile${p ? `/${p}` : ''}?${param}=${v}`;
          expect((await api.get(url, t.user)).status, url).toBeLessThan(500);
        }
      }
    }
  });
});
