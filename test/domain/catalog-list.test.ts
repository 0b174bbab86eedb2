// docs/http-api.md#http-api list parameters (search, page, perPage, sortField, sortAsc, format) and the field
// checks shared by the catalogue's create endpoints. Pure code: no database, no server.
import { describe, expect, it } from 'vitest';
import { ACTOR_BEACON_PROVIDERS, ACTOR_LIST, ACTOR_TYPES, checkActorCreate } from '../../src/domain/catalog/actors.js';
import {
  AUTHORITY_TYPES,
  countryName,
  fullId,
  parseAuthorityTypeFilter,
} from '../../src/domain/catalog/anton/fields.js';
import { nameFollowsLabel } from '../../src/domain/catalog/anton/input.js';
import { beaconToken, PROVIDERS } from '../../src/domain/catalog/list/beacon.js';
import { swissToWgs84 } from '../../src/domain/catalog/anton/location.js';
import {
  GND_RE,
  labelName,
  location,
  partialDate,
  readFields,
  field,
  name,
  sikartId,
  wikipediaUrl,
} from '../../src/domain/catalog/fields.js';
import { parseBeaconProvider, renderBeacon, toSelect2 } from '../../src/domain/catalog/list/formats.js';
import { KEYWORD_LIST } from '../../src/domain/catalog/keywords.js';
import { likePattern, parseListQuery, type QueryInput } from '../../src/domain/catalog/list/query.js';
import { parseObjectFilter } from '../../src/domain/catalog/objects.js';
import { checkPlaceCreate, PLACE_BEACON_PROVIDERS } from '../../src/domain/catalog/places.js';
import { toRecord } from '../../src/domain/catalog/records.js';
import { thrown } from '../helpers/errors.js';

const parse = (query: QueryInput) => parseListQuery(query, ACTOR_LIST);

describe('list parameters', () => {
  it('defaults to page 1, 25 per page, sorted by id ascending, as JSON, without a search', () => {
    expect(parse({})).toEqual({ search: null, page: 1, perPage: 25, sortField: 'id', sortAsc: true, format: 'json' });
  });

  it('reads every parameter', () => {
    expect(
      parse({ search: ' GoeThe ', page: '3', perPage: '100', sortField: 'name', sortAsc: '0', format: 'select2' }),
    ).toEqual({
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
    const err = thrown(() =>
      parse({ page: 'x', perPage: '1000', sortField: 'x', sortAsc: 'x', format: 'x', search: ['a', 'b'] }),
    );
    expect(Object.keys(err.fields ?? {}).sort()).toEqual([
      'format',
      'page',
      'perPage',
      'search',
      'sortAsc',
      'sortField',
    ]);
  });

  it('refuses an absurdly long search', () => {
    expect(thrown(() => parse({ search: 'x'.repeat(256) })).fields).toHaveProperty('search');
    expect(parse({ search: 'x'.repeat(255) }).search).toHaveLength(255);
  });

  it('offers beacon only where the resource has it', () => {
    expect(parse({ format: 'beacon' }).format).toBe('beacon');
    expect(thrown(() => parseListQuery({ format: 'beacon' }, KEYWORD_LIST)).fields).toEqual({
      format: 'must be one of json, select2',
    });
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
    expect(thrown(() => parseBeaconProvider({ provider: 'viaf' }, PLACE_BEACON_PROVIDERS)).fields).toHaveProperty(
      'provider',
    );
    expect(thrown(() => parseBeaconProvider({ provider: 'geonames' }, ['gnd'])).fields).toHaveProperty('provider');
    expect(thrown(() => parseBeaconProvider({ provider: ['gnd', 'gnd'] }, ['gnd'])).fields).toEqual({
      provider: 'must be given once',
    });
  });

  it('renders BEACON: header, empty line, source|annotation|target lines, no stray bars or breaks', () => {
    const text = renderBeacon(
      {
        provider: 'gnd',
        name: 'archivectl actors',
        target: 'https://a.example/api/actors/{ID}',
        timestamp: new Date('2026-11-20T10:00:00.123Z'),
      },
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
    for (const id of [
      '118540238',
      '11854023X',
      '1047974410',
      '4005728-8',
      '2037654-4',
      '5-X',
      '7500001-0',
      '30000000X',
    ]) {
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
    for (const d of ['1749-13', '1749-08-32', '1900-02-29', '17490828', '1749-8-28', 'yesterday', 1749])
      expect(partialDate(d).ok, String(d)).toBe(false);
  });

  it('checks locations as "<lat> <lon>" within range', () => {
    expect(location('47.3769 8.5417')).toEqual({ ok: true, value: '47.3769 8.5417' });
    expect(location(' -90  180 ')).toEqual({ ok: true, value: '-90 180' });
    for (const l of ['91 0', '0 181', '47.3,8.5', '47.3', '1 2 3', 'a b', '1e2 3', 47])
      expect(location(l).ok, String(l)).toBe(false);
  });

  it('requires the name on create, trims it and applies no other defaults', () => {
    expect(checkActorCreate({})).toEqual({ ok: false, errors: { name: 'required' } });
    expect(checkActorCreate({ name: null })).toEqual({ ok: false, errors: { name: 'required' } });
    const r = checkActorCreate({ name: '  Goethe  ' });
    expect(r.ok && r.values).toEqual({ name: 'Goethe' });
  });

  it('refuses unknown fields, and __proto__ or constructor never reach a prototype', () => {
    const input = JSON.parse(
      '{"name": "x", "__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}}',
    ) as unknown;
    const r = readFields(input, { name: field(name()) }, 'create');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.errors).sort()).toEqual(['__proto__', 'constructor']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('ignores server-set fields sent back unchanged (id, created_at, updated_at)', () => {
    expect(checkActorCreate({ id: 3, name: 'x', created_at: 'a', updated_at: 'b' }).ok).toBe(true);
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'x', 3, true])
      expect(checkPlaceCreate(body)).toEqual({ ok: false, errors: { body: 'must be a JSON object' } });
  });

  it('collects every place problem in one answer', () => {
    const r = checkPlaceCreate({
      name: '',
      country_code: 'che',
      location: '0 200',
      geonames: 'x',
      label: { english: 'x' },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.errors).sort()).toEqual(['country_code', 'geonames', 'label', 'location', 'name']);
  });
});

// --- issue 9: Anton's shapes, BEACON tokens, new identifiers ------------------------------------

describe('BEACON tokens (beacon.md §2.2-2.3)', () => {
  it('normalises NFKC, drops characters outside BEACON, replaces | and every line break, trims', () => {
    expect(beaconToken('  Goethe \t Johann \r\n ')).toBe('Goethe Johann');
    expect(beaconToken('A\uFFFEB\uFFFFC')).toBe('ABC');
    expect(beaconToken('x\u{1FFFE}y\u{10FFFF}z\uFDD0')).toBe('xyz');
    expect(beaconToken('a\u0085b\u000bc\u000cd\u007fe\u0080f')).toBe('abcdef');
    expect(beaconToken('line\u2028sep\u2029par')).toBe('line sep par');
    expect(beaconToken('A|B')).toBe('A/B');
    expect(beaconToken('A\uFF5CB')).toBe('A/B'); // fullwidth bar → NFKC "|" → "/"
    expect(beaconToken('ﬁle\u00A0Ⅻ')).toBe('file XII');
    expect(beaconToken('\uD800lone\uDFFF')).toBe('lone');
    expect(beaconToken('\uFEFFbom')).toBe('bom');
    expect(beaconToken('  \u3000 ')).toBe('');
  });

  it('leaves #PREFIX out for Wikipedia (its ids are URLs), #TIMESTAMP out without a timestamp, and links without a source', () => {
    const text = renderBeacon(
      { provider: 'wikipedia', name: 'places', target: 'https://a.example/api/places/{ID}', timestamp: null },
      [
        { source: 'https://de.wikipedia.org/wiki/Zürich', id: 1, annotation: ' Zürich ' },
        { source: ' \uFFFE ', id: 2, annotation: 'no source' },
      ],
    );
    expect(text.split('\n')).toEqual([
      '#FORMAT: BEACON',
      '#TARGET: https://a.example/api/places/{ID}',
      '#RELATION: http://www.w3.org/2000/01/rdf-schema#seeAlso',
      '#NAME: places',
      '',
      'https://de.wikipedia.org/wiki/Zürich|Zürich|1',
      '',
    ]);
    expect(PROVIDERS.sikart.prefix).toContain('{ID}');
  });

  it('takes sikart for actors and wikipedia for places, and nothing else', () => {
    expect(parseBeaconProvider({ provider: 'sikart' }, ACTOR_BEACON_PROVIDERS)).toBe('sikart');
    expect(parseBeaconProvider({ provider: 'wikipedia' }, PLACE_BEACON_PROVIDERS)).toBe('wikipedia');
    expect(thrown(() => parseBeaconProvider({ provider: 'wikipedia' }, ACTOR_BEACON_PROVIDERS)).fields).toHaveProperty(
      'provider',
    );
    expect(thrown(() => parseBeaconProvider({ provider: 'sikart' }, PLACE_BEACON_PROVIDERS)).fields).toHaveProperty(
      'provider',
    );
  });
});

describe('identifiers of SIKART and Wikipedia', () => {
  it('stores a SIKART id, also from its URIs', () => {
    expect(sikartId('4000055')).toEqual({ ok: true, value: '4000055' });
    expect(sikartId('https://recherche.sik-isea.ch/sik:person-4000055/in/sikart')).toEqual({
      ok: true,
      value: '4000055',
    });
    expect(sikartId('https://www.sikart.ch/KuenstlerInnen.aspx?id=4023127&lng=de')).toEqual({
      ok: true,
      value: '4023127',
    });
    for (const bad of ['abc', '0123', '12', 'https://example.org/?id=4000055', 4000055])
      expect(sikartId(bad).ok, String(bad)).toBe(false);
  });

  it('stores a Wikipedia article as its canonical URL: title decoded, spaces as _, only a few characters escaped', () => {
    const ok = (v: string) => {
      const r = wikipediaUrl(v);
      return r.ok ? r.value : `refused: ${r.message}`;
    };
    expect(ok('https://de.wikipedia.org/wiki/Z%C3%BCrich')).toBe('https://de.wikipedia.org/wiki/Zürich');
    expect(ok('http://DE.m.wikipedia.org/wiki/Bad Ragaz#Geschichte')).toBe('https://de.wikipedia.org/wiki/Bad_Ragaz');
    expect(ok('https://en.wikipedia.org/wiki/Who%3F_(place)')).toBe('https://en.wikipedia.org/wiki/Who%3F_(place)');
    expect(ok('https://en.wikipedia.org/wiki/100%25_Town')).toBe('https://en.wikipedia.org/wiki/100%25_Town');
    for (const bad of [
      'https://example.org/wiki/X',
      'de.wikipedia.org/wiki/X',
      'https://de.wikipedia.org/wiki/',
      'https://de.wikipedia.org/wiki/A|B',
      'https://de.wikipedia.org/wiki/%E0%A4%A',
      42,
    ]) {
      expect(wikipediaUrl(bad).ok, String(bad)).toBe(false);
    }
  });
});

describe('Swiss coordinates in location (Anton PlaceInput)', () => {
  it('converts LV95 and LV03, in either order, to WGS84 decimal degrees', () => {
    // Bern's old observatory, the origin of both frames: 46°57'08.66" N, 7°26'22.50" E.
    expect(swissToWgs84('2600000 1200000')).toBe('46.951081 7.438637');
    expect(swissToWgs84("2'600'000 1'200'000")).toBe('46.951081 7.438637');
    expect(swissToWgs84('600000, 200000')).toBe('46.951081 7.438637');
    expect(swissToWgs84('1200000 2600000')).toBe('46.951081 7.438637');
    // swisstopo's worked example: E 2'700'000, N 1'100'000 → 46°02'38.87" N, 8°43'49.79" E.
    const [lat, lon] = (swissToWgs84('2700000 1100000') as string).split(' ').map(Number) as [number, number];
    expect(Math.abs(lat - (46 + 2 / 60 + 38.87 / 3600))).toBeLessThan(0.00002);
    expect(Math.abs(lon - (8 + 43 / 60 + 49.79 / 3600))).toBeLessThan(0.00002);
    for (const bad of ['2600000', '3600000 1200000', '100 200', 'abc def']) expect(swissToWgs84(bad), bad).toBeNull();
    expect(location('2600000 1200000')).toEqual({ ok: true, value: '46.951081 7.438637' });
  });
});

describe("Anton's ActorInput and PlaceInput", () => {
  const values = <T>(r: { ok: true; values: T } | { ok: false; errors: Record<string, string> }): T => {
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    return { ...r.values };
  };
  const errors = (r: { ok: boolean; errors?: Record<string, string> }) => (r.ok ? {} : { ...r.errors });

  it('maps type_id 1-6 onto the types in the order of Anton’s enum', () => {
    expect(AUTHORITY_TYPES.map((t) => t.code)).toEqual([...ACTOR_TYPES]);
    ACTOR_TYPES.forEach((type, i) => expect(values(checkActorCreate({ name: 'x', type_id: i + 1 })).type).toBe(type));
    expect(values(checkActorCreate({ name: 'x', type_id: '3' })).type).toBe('corporate_body'); // a form's digits
    for (const bad of [0, 7, 1.5, 'person', null, true])
      expect(errors(checkActorCreate({ name: 'x', type_id: bad })), String(bad)).toHaveProperty('type_id');
    expect(errors(checkActorCreate({ name: 'x', type: 'person', type_id: 2 }))).toHaveProperty('type_id');
    expect(values(checkActorCreate({ name: 'x', type: 'family', type_id: 2 })).type).toBe('family');
  });

  it('takes the name from label when there is none: de, en, fr, it, else the first; null values are no translation', () => {
    expect(values(checkActorCreate({ label: { en: 'Luther', de: ' Luther, Martin ' } }))).toEqual({
      name: 'Luther, Martin',
      label: { en: 'Luther', de: 'Luther, Martin' },
    });
    expect(values(checkActorCreate({ label: { rm: 'Turitg', fr: 'Zurich' } })).name).toBe('Zurich');
    expect(values(checkActorCreate({ label: { rm: 'Turitg', fr: null } })).name).toBe('Turitg');
    expect(values(checkActorCreate({ label: { de: 'Müller, Hans', fr: null } })).label).toEqual({ de: 'Müller, Hans' });
    expect(values(checkActorCreate({ name: 'Own name', label: { de: 'Label' } })).name).toBe('Own name');
    expect(errors(checkActorCreate({ label: { de: null, fr: '  ' } }))).toEqual({ name: 'required' });
    expect(labelName({ it: 'Zurigo', xx: 'first' })).toBe('Zurigo');
  });

  it('reads anton_date_start/_end in our forms and as D.M.YYYY or M.YYYY; they must agree with date_start/_end', () => {
    expect(
      values(checkActorCreate({ name: 'x', anton_date_start: '28.8.1749', anton_date_end: '03.1832' })),
    ).toMatchObject({ date_start: '1749-08-28', date_end: '1832-03' });
    expect(values(checkActorCreate({ name: 'x', anton_date_start: '1749', date_start: '1749' })).date_start).toBe(
      '1749',
    );
    expect(values(checkActorCreate({ name: 'x', anton_date_start: null })).date_start).toBeNull();
    expect(errors(checkActorCreate({ name: 'x', anton_date_start: 'ca. 1750' }))).toHaveProperty('anton_date_start');
    expect(errors(checkActorCreate({ name: 'x', anton_date_start: '31.2.1900' }))).toHaveProperty('anton_date_start');
    expect(errors(checkActorCreate({ name: 'x', anton_date_start: '1749', date_start: '1750' }))).toHaveProperty(
      'anton_date_start',
    );
    expect(errors(checkActorCreate({ name: 'x', anton_date_start: '1900', anton_date_end: '1800' }))).toHaveProperty(
      'date_end',
    );
  });

  it('keeps variants and abbreviations; refuses private: true and accepts false or null', () => {
    expect(values(checkActorCreate({ name: 'x', variants: ['X.'], abbreviations: ['XX'], private: false }))).toEqual({
      name: 'x',
      variants: ['X.'],
      abbreviations: ['XX'],
    });
    expect(values(checkActorCreate({ name: 'x', private: null })).name).toBe('x');
    expect(errors(checkActorCreate({ name: 'x', private: true })).private).toMatch(/not supported/);
    expect(errors(checkActorCreate({ name: 'x', private: 'maybe' }))).toHaveProperty('private');
  });

  it('ignores the derived fields of a record sent back, and still refuses unknown fields', () => {
    expect(
      values(checkActorCreate({ name: 'x', full_id: 'kr-actors-1', fullname: 'y', authority_type: 'family' })),
    ).toEqual({ name: 'x' });
    expect(errors(checkActorCreate({ name: 'x', authority: 'family' }))).toHaveProperty('authority');
  });

  it('maps country_code_id, refuses a place type_id other than null, and converts Swiss coordinates', () => {
    expect(
      values(
        checkPlaceCreate({
          label: { de: 'Zürich' },
          country_code_id: 'ch',
          type_id: null,
          location: '2683000 1247000',
        }),
      ),
    ).toMatchObject({
      name: 'Zürich',
      country_code: 'CH',
    });
    expect(errors(checkPlaceCreate({ name: 'x', country_code_id: 'CHE' }))).toHaveProperty('country_code_id');
    expect(errors(checkPlaceCreate({ name: 'x', country_code_id: 'DE', country_code: 'CH' }))).toHaveProperty(
      'country_code_id',
    );
    expect(errors(checkPlaceCreate({ name: 'x', type_id: 4 })).type_id).toMatch(/not kept/);
    expect(values(checkPlaceCreate({ name: 'x', country_code_id: null })).country_code).toBeNull();
  });

  it('lets a changed label carry the name only while the name was the label’s', () => {
    expect(nameFollowsLabel({ name: 'Müller, Hans', label: { de: 'Müller, Hans' } }, { de: 'Müller, Johann' })).toBe(
      'Müller, Johann',
    );
    expect(
      nameFollowsLabel({ name: 'Goethe, J. W.', label: { de: 'Johann Wolfgang von Goethe' } }, { de: 'Goethe' }),
    ).toBeUndefined();
    expect(nameFollowsLabel({ name: 'Bern', label: null }, { de: 'Berne' })).toBeUndefined();
    expect(nameFollowsLabel({ name: 'Bern', label: { de: 'Bern' } }, null)).toBeUndefined();
  });
});

describe('list filters and sorts of issue 9', () => {
  it('reads authority_type as a code, a label in de/en/fr or a type_id; anything else is a 422', () => {
    expect(parseAuthorityTypeFilter({})).toBeNull();
    expect(parseAuthorityTypeFilter({ authority_type: '' })).toBeNull();
    expect(parseAuthorityTypeFilter({ authority_type: 'person' })).toBe('person');
    expect(parseAuthorityTypeFilter({ authority_type: 'Körperschaft' })).toBe('corporate_body');
    expect(parseAuthorityTypeFilter({ authority_type: 'corporate body' })).toBe('corporate_body');
    expect(parseAuthorityTypeFilter({ authority_type: 'FAMILLE' })).toBe('family');
    expect(parseAuthorityTypeFilter({ authority_type: '6' })).toBe('software');
    expect(thrown(() => parseAuthorityTypeFilter({ authority_type: 'alien' })).fields).toHaveProperty('authority_type');
    expect(thrown(() => parseAuthorityTypeFilter({ authority_type: ['person', 'family'] })).fields).toEqual({
      authority_type: 'must be given once',
    });
  });

  it('sorts keywords by label (Anton’s name for it) and refuses Anton’s structured object filters', () => {
    expect(parseListQuery({ sortField: 'label' }, KEYWORD_LIST).sortField).toBe('label');
    expect(parseObjectFilter({ identifier: ' SLA-1 ' })).toEqual({ identifier: 'SLA-1' });
    expect(parseObjectFilter({})).toEqual({ identifier: null });
    expect(
      Object.keys(
        thrown(() => parseObjectFilter({ 'fields[]': 'object.title', 'operators[]': 'contains', 'values[]': 'x' }))
          .fields ?? {},
      ).sort(),
    ).toEqual(['fields[]', 'operators[]', 'values[]']);
    expect(thrown(() => parseObjectFilter({ identifier: ['a', 'b'] })).fields).toEqual({
      identifier: 'must be given once',
    });
  });

  it('gives full_id as <slug>-<register>-<id>, and countries by their English name', () => {
    expect(fullId('kr', 'actors', 123)).toBe('kr-actors-123');
    expect(countryName('CH')).toBe('Switzerland');
    expect(countryName(null)).toBeNull();
  });
});

describe('reading a row into a record', () => {
  const description = (names: string[]) => ({
    table: 't',
    what: 'thing',
    columns: Object.fromEntries(names.map((n) => [n, { read: (raw: unknown) => `read ${String(raw)}` }])),
    columnNames: names,
  });

  it('reads every column through its own reader, in the description order, and nothing else', () => {
    const record = toRecord(description(['id', 'name_lower', 'b']), { b: 2, id: 1, name_lower: 'x', extra: 9 });
    expect(Object.entries(record as object)).toEqual([
      ['id', 'read 1'],
      ['name_lower', 'read x'],
      ['b', 'read 2'],
    ]);
  });

  it('refuses a column name that is not a plain identifier, before it becomes code', () => {
    for (const bad of ['a-b', 'x)}); process.exit(1); ({y', 'Name', '1a', ''])
      expect(() => toRecord(description(['id', bad]), { id: 1 })).toThrow(/is not a plain identifier/);
  });
});
