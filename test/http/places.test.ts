// docs/http-api.md#http-api places through a real daemon: POST /api/places creates, POST /api/places/{id}
// changes, the location and other field checks, lists, select2 and BEACON (GND and GeoNames).
import { beforeAll, describe, expect, it } from 'vitest';
import { dataOf, fieldsOf, ISO_INSTANT } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';
import { clockMoves } from '../helpers/until.js';

const { daemon, api, t } = useDaemonWithTokens();

const PLACE_KEYS = [
  'id',
  'name',
  'label',
  'city',
  'state',
  'address',
  'country_code',
  'location',
  'alternative_names',
  'variants',
  'abbreviations',
  'comment',
  'gnd',
  'geonames',
  'wikipedia',
  'created_at',
  'updated_at',
  // derived, for Anton's clients (issue 9)
  'full_id',
  'country',
];

interface Place {
  id: number;
  name: string;
  location: string | null;
  country_code: string | null;
  gnd: string | null;
  geonames: string | null;
  comment: string | null;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

interface List<T> {
  data: T[];
  meta: { page: number; perPage: number; total: number };
}

async function create(body: Record<string, unknown>): Promise<Place> {
  const r = await api.post('/api/places', body, t.editor);
  expect(r.status, r.text).toBe(201);
  return dataOf<Place>(r);
}

const total = async () => ((await api.get('/api/places', t.user)).body as List<Place>).meta.total;

describe('POST /api/places', () => {
  it('creates a place with every field and answers 201 {"data": place}', async () => {
    const body = {
      name: 'Zürich',
      label: { de: 'Zürich', fr: 'Zurich' },
      city: 'Zürich',
      state: 'Zürich',
      address: 'Rämistrasse 71',
      country_code: 'CH',
      location: '47.3769 8.5417',
      alternative_names: ['Zurich', 'Turicum'],
      comment: 'Largest city of Switzerland',
      gnd: '4068038-8',
      geonames: '2657896',
    };
    const r = await api.post('/api/places', body, t.editor);
    expect(r.status).toBe(201);
    const place = dataOf<Place>(r);
    expect(Object.keys(place).sort()).toEqual([...PLACE_KEYS].sort());
    expect(place).toMatchObject(body);
    expect(place.created_at).toMatch(ISO_INSTANT);
    expect((await api.get(`/api/places/${place.id}`, t.user)).body).toEqual({ data: place });
  });

  it('takes only a name, the rest null', async () => {
    const place = await create({ name: 'Nowhere' });
    for (const key of PLACE_KEYS.filter((k) => !['id', 'name', 'created_at', 'updated_at', 'full_id'].includes(k))) {
      expect(place[key], key).toBeNull();
    }
  });

  it('accepts locations in decimal degrees at the edges of their ranges', async () => {
    for (const location of ['47.37 8.54', '-33.8688 151.2093', '90 180', '-90 -180', '0 0', '47 8']) {
      expect((await create({ name: `At ${location}`, location })).location, location).toBe(location);
    }
  });

  it('refuses bad locations, country codes and identifiers with 422 naming the field, and creates nothing', async () => {
    const before = await total();
    const cases: [unknown, string][] = [
      [{ name: 'x', location: '91 0' }, 'location'],
      [{ name: 'x', location: '-91 0' }, 'location'],
      [{ name: 'x', location: '0 181' }, 'location'],
      [{ name: 'x', location: 'abc' }, 'location'],
      [{ name: 'x', location: '47.37' }, 'location'],
      [{ name: 'x', location: '47.37 8.54 100' }, 'location'],
      [{ name: 'x', location: '47,37 8,54' }, 'location'],
      [{ name: 'x', location: '' }, 'location'],
      [{ name: 'x', location: [47.37, 8.54] }, 'location'],
      [{ name: 'x', location: '1e1 8' }, 'location'],
      [{ name: 'x', country_code: 'ch' }, 'country_code'],
      [{ name: 'x', country_code: 'CHE' }, 'country_code'],
      [{ name: 'x', country_code: 'C' }, 'country_code'],
      [{ name: 'x', country_code: 41 }, 'country_code'],
      [{ name: 'x', gnd: 'zürich' }, 'gnd'],
      [{ name: 'x', geonames: 'abc' }, 'geonames'],
      [{ name: 'x', label: 'Zürich' }, 'label'],
      [{ name: 'x', alternative_names: 'Zurich' }, 'alternative_names'],
      [{ name: 'x', population: 1 }, 'population'],
      [{}, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
    ];
    for (const [body, field] of cases) {
      const r = await api.post('/api/places', body, t.editor);
      expect(fieldsOf(r), JSON.stringify(body)).toHaveProperty(field);
    }
    const badJson = await api.post('/api/places', '{"name": "x"', t.editor);
    expect(badJson.status).toBe(400);
    const array = await api.post('/api/places', '[]', t.editor);
    expect(array.status).toBe(422);
    expect(await total()).toBe(before);
  });

  it('stores a GeoNames URI as its id', async () => {
    expect((await create({ name: 'Bern', geonames: 'https://www.geonames.org/2661552/bern.html' })).geonames).toBe(
      '2661552',
    );
  });
});

describe('POST /api/places/{id}', () => {
  it('changes the given fields only and answers 200', async () => {
    const created = await create({ name: 'Basel', country_code: 'CH', location: '47.5596 7.5886' });
    await clockMoves(); // updated_at must move
    const r = await api.post(`/api/places/${created.id}`, { comment: 'On the Rhine', city: 'Basel' }, t.editor);
    expect(r.status).toBe(200);
    const changed = dataOf<Place>(r);
    expect(changed).toEqual({ ...created, comment: 'On the Rhine', city: 'Basel', updated_at: changed.updated_at });
    expect(changed.updated_at > created.updated_at).toBe(true);
    expect((await api.get(`/api/places/${created.id}`, t.user)).body).toEqual({ data: changed });
    const cleared = dataOf<Place>(await api.post(`/api/places/${created.id}`, { location: null }, t.editor));
    expect(cleared.location).toBeNull();
    expect(cleared.country_code).toBe('CH');
  });

  it('refuses a bad change with 422 and keeps the place as it was', async () => {
    const created = await create({ name: 'Genève', location: '46.2044 6.1432' });
    for (const [body, field] of [
      [{ location: '91 0' }, 'location'],
      [{ location: 'abc' }, 'location'],
      [{ location: '47.37' }, 'location'],
      [{ name: null }, 'name'],
      [{ country_code: 'xx' }, 'country_code'],
      // Two uppercase letters that ISO 3166-1 does not assign (issue 35).
      [{ country_code: 'XX' }, 'country_code'],
      [{ country_code: 'AB' }, 'country_code'],
      [{ country_code_id: 'AB' }, 'country_code'],
      [{ bogus: true }, 'bogus'],
    ] as [unknown, string][]) {
      const r = await api.post(`/api/places/${created.id}`, body, t.editor);
      expect(fieldsOf(r), JSON.stringify(body)).toHaveProperty(field);
    }
    const bodiless = await api.request(`/api/places/${created.id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.editor}` },
    });
    expect(fieldsOf(bodiless)).toEqual({ body: 'required' });
    expect((await api.get(`/api/places/${created.id}`, t.user)).body).toEqual({ data: created });
  });

  it('answers 404 for unknown and non-integer ids', async () => {
    for (const id of ['999999', 'abc', '0', '-1', '1.5']) {
      expect((await api.post(`/api/places/${id}`, { comment: 'x' }, t.editor)).status, id).toBe(404);
      expect((await api.get(`/api/places/${id}`, t.user)).status, id).toBe(404);
    }
  });
});

describe('GET /api/places (list, select2, BEACON)', () => {
  let withBoth: Place;
  let withGeonames: Place;
  beforeAll(async () => {
    withBoth = await create({ name: 'Placelist Luzern', gnd: '4036609-0', geonames: '2659811' });
    withGeonames = await create({ name: 'placelist Lugano', geonames: '2659836' });
    await create({ name: 'PLACELIST Chur' });
  });

  it('lists with search, paging and sorting', async () => {
    const r = await api.get('/api/places?search=PlaceList&sortField=name&sortAsc=1', t.user);
    const list = r.body as List<Place>;
    expect(list.meta).toEqual({ page: 1, perPage: 25, total: 3 });
    expect(list.data.map((p) => p.name)).toEqual(['PLACELIST Chur', 'placelist Lugano', 'Placelist Luzern']);
    for (const p of list.data) expect(Object.keys(p).sort()).toEqual([...PLACE_KEYS].sort());
    const page2 = (await api.get('/api/places?search=placelist&sortField=name&perPage=2&page=2', t.user))
      .body as List<Place>;
    expect(page2.data.map((p) => p.name)).toEqual(['Placelist Luzern']);
    expect(page2.meta).toEqual({ page: 2, perPage: 2, total: 3 });
    for (const field of ['city', 'state', 'country_code', 'created_at', 'updated_at', 'id']) {
      expect((await api.get(`/api/places?sortField=${field}&sortAsc=0`, t.user)).status, field).toBe(200);
    }
    expect(fieldsOf(await api.get('/api/places?sortField=location', t.user))).toHaveProperty('sortField');
    expect(fieldsOf(await api.get('/api/places?perPage=101', t.user))).toHaveProperty('perPage');
  });

  it('answers format=select2', async () => {
    const body = (await api.get('/api/places?format=select2&search=placelist&sortField=id', t.user)).body as {
      results: { id: number; text: string }[];
    };
    expect(body.results.map((x) => x.text)).toEqual(['Placelist Luzern', 'placelist Lugano', 'PLACELIST Chur']);
    expect(body.results[0]).toEqual({ id: withBoth.id, text: 'Placelist Luzern' });
  });

  it('answers BEACON for provider gnd (the default) and geonames', async () => {
    const gnd = await api.get('/api/places?format=beacon', t.user);
    expect(gnd.status).toBe(200);
    expect(gnd.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(gnd.text.startsWith('#FORMAT: BEACON\n')).toBe(true);
    expect(gnd.text).toContain('#PREFIX: https://d-nb.info/gnd/');
    expect(gnd.text.split('\n')).toContain(`4036609-0|Placelist Luzern|${withBoth.id}`);
    expect(gnd.text).not.toContain('Lugano');
    expect((await api.get('/api/places?format=beacon&provider=gnd', t.user)).text).toContain(`|${withBoth.id}`);

    const geo = await api.get('/api/places?format=beacon&provider=geonames', t.user);
    expect(geo.status).toBe(200);
    expect(geo.text.startsWith('#FORMAT: BEACON\n')).toBe(true);
    expect(geo.text).toMatch(/#PREFIX: https?:\/\/(sws\.|www\.)?geonames\.org\//);
    const lines = geo.text.split('\n');
    expect(lines).toContain(`2659811|Placelist Luzern|${withBoth.id}`);
    expect(lines).toContain(`2659836|placelist Lugano|${withGeonames.id}`);
    expect(geo.text).not.toContain('Chur');
  });

  it('refuses an unknown BEACON provider with 422', async () => {
    for (const provider of ['viaf', 'GND', 'wikidata']) {
      expect(
        fieldsOf(await api.get(`/api/places?format=beacon&provider=${provider}`, t.user)),
        provider,
      ).toHaveProperty('provider');
    }
    expect(fieldsOf(await api.get('/api/places?format=beacon&provider=gnd&provider=geonames', t.user))).toHaveProperty(
      'provider',
    );
  });
});

describe("Anton's fields and requests (issue 9)", () => {
  it('gives every record and list item full_id and country (the English name of country_code), beside city and state', async () => {
    const created = await create({
      name: 'Antonplace Winterthur',
      city: 'Winterthur',
      state: 'Zürich',
      country_code: 'CH',
    });
    expect(created).toMatchObject({
      full_id: `archive-places-${created.id}`,
      city: 'Winterthur',
      state: 'Zürich',
      country: 'Switzerland',
    });
    expect((await create({ name: 'Antonplace Nowhere' })).country).toBeNull();
    const list = (await api.get('/api/places?format=json&perPage=30&search=antonplace%20winterthur', t.user))
      .body as List<Place>;
    expect(list.data).toEqual([created]);
  });

  it('creates from PlaceInput (label, country_code_id, type_id null, Swiss coordinates, variants): 201 with Location', async () => {
    const r = await api.post(
      '/api/places',
      {
        label: { de: 'Antonplace Bern', fr: 'Berne' },
        type_id: null,
        country_code_id: 'CH',
        city: 'Bern',
        state: 'Bern',
        address: 'Bundesplatz 3',
        location: '2600000 1200000',
        alternative_names: ['Berna'],
        variants: ['Bärn'],
        abbreviations: ['BE'],
        comment: 'Federal city',
      },
      t.editor,
    );
    expect(r.status, r.text).toBe(201);
    const place = dataOf<Place>(r);
    expect(place).toMatchObject({
      name: 'Antonplace Bern',
      country_code: 'CH',
      country: 'Switzerland',
      location: '46.951081 7.438637',
      variants: ['Bärn'],
      abbreviations: ['BE'],
    });
    expect(r.headers.get('location')).toBe(`${daemon().url.replace(/\/$/, '')}/api/places/${place.id}`);
    const changed = await api.post(
      `/api/places/${place.id}`,
      { label: { de: 'Antonplace Bern (Stadt)' }, country_code_id: 'ch' },
      t.editor,
    );
    expect(dataOf<Place>(changed)).toMatchObject({ name: 'Antonplace Bern (Stadt)', country_code: 'CH' });
    expect(changed.headers.get('location')).toBeNull(); // a change creates nothing
  });

  it('refuses a place type_id and a bad country_code_id with 422, creating nothing', async () => {
    const before = await total();
    expect(fieldsOf(await api.post('/api/places', { name: 'x', type_id: 3 }, t.editor)).type_id).toMatch(/place types/);
    expect(fieldsOf(await api.post('/api/places', { name: 'x', country_code_id: 'Schweiz' }, t.editor))).toHaveProperty(
      'country_code_id',
    );
    expect(await total()).toBe(before);
  });

  it('keeps Wikipedia articles and dumps them as BEACON with provider=wikipedia (full URLs: no #PREFIX)', async () => {
    const place = await create({ name: 'Antonplace Zürich', wikipedia: 'https://de.wikipedia.org/wiki/Z%C3%BCrich' });
    expect(place.wikipedia).toBe('https://de.wikipedia.org/wiki/Zürich');
    const r = await api.get('/api/places?format=beacon&provider=wikipedia', t.user);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('#PREFIX');
    expect(r.text.split('\n')).toContain(`https://de.wikipedia.org/wiki/Zürich|Antonplace Zürich|${place.id}`);
    expect(
      fieldsOf(await api.post('/api/places', { name: 'x', wikipedia: 'https://example.org/wiki/X' }, t.editor)),
    ).toHaveProperty('wikipedia');
  });

  it('refuses sortField values of Anton that do not apply to places', async () => {
    for (const field of ['identifier', 'title', 'date_start', 'date_end']) {
      expect(fieldsOf(await api.get(`/api/places?sortField=${field}`, t.user)), field).toHaveProperty('sortField');
    }
  });
});
