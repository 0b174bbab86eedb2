// SPEC §4.4 list parameters (search, page, perPage, sortField, sortAsc, format) and the field
// checks shared by the catalogue's create endpoints. Pure code: no database, no server.
import { describe, expect, it } from 'vitest';
import { ACTOR_LIST, checkActorCreate } from '../../src/domain/catalog/actors.js';
import { GND_RE, location, partialDate, readFields, field, name } from '../../src/domain/catalog/fields.js';
import { parseBeaconProvider, renderBeacon, toSelect2 } from '../../src/domain/catalog/formats.js';
import { KEYWORD_LIST } from '../../src/domain/catalog/keywords.js';
import { likePattern, parseListQuery, type QueryInput } from '../../src/domain/catalog/list.js';
import { checkPlaceCreate, PLACE_BEACON_PROVIDERS } from '../../src/domain/catalog/places.js';
import { AppError } from '../../src/errors.js';

/** The AppError a call throws (fails the test when it does not throw one). */
function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected an error');
}

const parse = (query: QueryInput) => parseListQuery(query, ACTOR_LIST);

describe('list parameters', () => {
  it('defaults to page 1, 25 per page, sorted by id ascending, as JSON, without a search', () => {
    expect(parse({})).toEqual({ search: null, page: 1, perPage: 25, sortField: 'id', sortAsc: true, format: 'json' });
  });

  it('reads every parameter', () => {
    expect(parse({ search: ' GoeThe ', page: '3', perPage: '100', sortField: 'name', sortAsc: '0', format: 'select2' })).toEqual({
      search: 'goethe',
      page: 3,
      perPage: 100,
      sortField: 'name',
      sortAsc: false,
      format: 'select2',
    });
  });

  it('treats empty values as absent (an empty form field)', () => {
    expect(parse({ search: '', page: '', perPage: '', sortField: '', sortAsc: '', format: '' })).toEqual(parse({}));
    expect(parse({ search: '   ' }).search).toBeNull();
  });

  it('accepts sortAsc as 0/1 and true/false', () => {
    expect(parse({ sortAsc: '1' }).sortAsc).toBe(true);
    expect(parse({ sortAsc: 'true' }).sortAsc).toBe(true);
    expect(parse({ sortAsc: 'false' }).sortAsc).toBe(false);
  });

  it('caps perPage at 100 with a 422 rather than quietly', () => {
    const err = thrown(() => parse({ perPage: '101' }));
    expect(err.kind).toBe('invalid');
    expect(err.fields).toEqual({ perPage: 'must be an integer from 1 to 100' });
  });

  it.each([
    ['page', '0'],
    ['page', '-1'],
    ['page', '1.5'],
    ['page', '1e3'],
    ['page', '0x10'],
    ['page', 'abc'],
    ['page', '99999999999999999999'],
    ['page', '1000001'],
    ['perPage', '0'],
    ['perPage', ' 5'],
    ['perPage', 'NaN'],
    ['sortAsc', '2'],
    ['sortAsc', 'yes'],
    ['sortField', 'password'],
    ['sortField', 'name; DROP TABLE actors'],
    ['format', 'xml'],
    ['format', 'JSON'],
  ])('refuses %s=%j with a 422 naming the parameter', (key, value) => {
    const err = thrown(() => parse({ [key]: value }));
    expect(err.kind).toBe('invalid');
    expect(Object.keys(err.fields ?? {})).toEqual([key]);
  });

  it('refuses a repeated parameter (an array) instead of guessing', () => {
    for (const key of ['search', 'page', 'perPage', 'sortField', 'sortAsc', 'format']) {
      const err = thrown(() => parse({ [key]: ['1', '2'] }));
      expect(err.fields).toEqual({ [key]: 'must be given once' });
    }
  });

  it('reports every bad parameter at once', () => {
    const err = thrown(() => parse({ page: 'x', perPage: '1000', sortField: 'x', sortAsc: 'x', format: 'x', search: ['a', 'b'] }));
    expect(Object.keys(err.fields ?? {}).sort()).toEqual(['format', 'page', 'perPage', 'search', 'sortAsc', 'sortField']);
  });

  it('refuses an absurdly long search', () => {
    expect(thrown(() => parse({ search: 'x'.repeat(256) })).fields).toHaveProperty('search');
    expect(parse({ search: 'x'.repeat(255) }).search).toHaveLength(255);
  });

  it('offers beacon only where the resource has it', () => {
    expect(parse({ format: 'beacon' }).format).toBe('beacon');
    expect(thrown(() => parseListQuery({ format: 'beacon' }, KEYWORD_LIST)).fields).toEqual({ format: 'must be one of json, select2' });
  });

  it('ignores parameters it does not know (cache busters, select2 extras)', () => {
    expect(parse({ _: '12345', q: 'x', term: 'y' })).toEqual(parse({}));
  });
});

describe('search pattern', () => {
  it('escapes LIKE wildcards and the escape character, so the search is a plain substring', () => {
    expect(likePattern('abc')).toBe('%abc%');
    expect(likePattern('100%')).toBe('%100\\%%');
    expect(likePattern('a_b')).toBe('%a\\_b%');
    expect(likePattern('c:\\x')).toBe('%c:\\\\x%');
  });
});

describe('formats', () => {
  it('answers select2 with results and a paging hint', () => {
    const list = { data: [{ id: 1, name: 'A' }], meta: { page: 1, perPage: 1, total: 2 } };
    expect(toSelect2(list, (x) => x.name)).toEqual({ results: [{ id: 1, text: 'A' }], pagination: { more: true } });
  });

  it('reads the beacon provider: gnd by default, an unknown one is a 422', () => {
    expect(parseBeaconProvider({}, PLACE_BEACON_PROVIDERS)).toBe('gnd');
    expect(parseBeaconProvider({ provider: 'geonames' }, PLACE_BEACON_PROVIDERS)).toBe('geonames');
    expect(thrown(() => parseBeaconProvider({ provider: 'viaf' }, PLACE_BEACON_PROVIDERS)).fields).toHaveProperty('provider');
    expect(thrown(() => parseBeaconProvider({ provider: 'geonames' }, ['gnd'])).fields).toHaveProperty('provider');
    expect(thrown(() => parseBeaconProvider({ provider: ['gnd', 'gnd'] }, ['gnd'])).fields).toEqual({ provider: 'must be given once' });
  });

  it('renders BEACON: header, empty line, source|annotation|target lines, no stray bars or breaks', () => {
    const text = renderBeacon(
      { provider: 'gnd', name: 'archivectl actors', target: 'https://a.example/api/actors/{ID}', timestamp: new Date('2026-11-20T10:00:00.123Z') },
      [{ source: '118540238', id: 7, annotation: 'Goethe |\n Johann' }],
    );
    expect(text.split('\n')).toEqual([
      '#FORMAT: BEACON',
      '#PREFIX: https://d-nb.info/gnd/',
      '#TARGET: https://a.example/api/actors/{ID}',
      '#RELATION: http://www.w3.org/2000/01/rdf-schema#seeAlso',
      '#NAME: archivectl actors',
      '#TIMESTAMP: 2026-11-20T10:00:00Z',
      '',
      '118540238|Goethe / Johann|7',
      '',
    ]);
  });
});

describe('field checks', () => {
  it('accepts GND identifiers of every generation and refuses others', () => {
    for (const id of ['118540238', '11854023X', '1047974410', '4005728-8', '2037654-4', '5-X', '7500001-0', '30000000X']) {
      expect(GND_RE.test(id), id).toBe(true);
    }
    for (const id of ['', 'abc', '0', '118540238 ', '-1', '4005728-', '1234567890123', '118540238-0']) {
      expect(GND_RE.test(id), id).toBe(false);
    }
  });

  it('stores a GND URI as its identifier', () => {
    const r = checkActorCreate({ name: 'Goethe', gnd: 'https://d-nb.info/gnd/118540238' });
    expect(r.ok && r.values.gnd).toBe('118540238');
  });

  it('checks dates of year, month or day precision', () => {
    for (const d of ['1749', '1749-08', '1749-08-28', '2000-02-29']) expect(partialDate(d).ok, d).toBe(true);
    for (const d of ['1749-13', '1749-08-32', '1900-02-29', '17490828', '1749-8-28', 'yesterday', 1749]) expect(partialDate(d).ok, String(d)).toBe(false);
  });

  it('checks locations as "<lat> <lon>" within range', () => {
    expect(location('47.3769 8.5417')).toEqual({ ok: true, value: '47.3769 8.5417' });
    expect(location(' -90  180 ')).toEqual({ ok: true, value: '-90 180' });
    for (const l of ['91 0', '0 181', '47.3,8.5', '47.3', '1 2 3', 'a b', '1e2 3', 47]) expect(location(l).ok, String(l)).toBe(false);
  });

  it('requires the name on create, trims it and applies no other defaults', () => {
    expect(checkActorCreate({})).toEqual({ ok: false, errors: { name: 'required' } });
    expect(checkActorCreate({ name: null })).toEqual({ ok: false, errors: { name: 'required' } });
    const r = checkActorCreate({ name: '  Goethe  ' });
    expect(r.ok && r.values).toEqual({ name: 'Goethe' });
  });

  it('refuses unknown fields, and __proto__ or constructor never reach a prototype', () => {
    const input = JSON.parse('{"name": "x", "__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}}') as unknown;
    const r = readFields(input, { name: field(name()) }, 'create');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.errors).sort()).toEqual(['__proto__', 'constructor']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('ignores server-set fields sent back unchanged (id, created_at, updated_at)', () => {
    expect(checkActorCreate({ id: 3, name: 'x', created_at: 'a', updated_at: 'b' }).ok).toBe(true);
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'x', 3, true]) expect(checkPlaceCreate(body)).toEqual({ ok: false, errors: { body: 'must be a JSON object' } });
  });

  it('collects every place problem in one answer', () => {
    const r = checkPlaceCreate({ name: '', country_code: 'che', location: '0 200', geonames: 'x', label: { english: 'x' } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.errors).sort()).toEqual(['country_code', 'geonames', 'label', 'location', 'name']);
  });
});
