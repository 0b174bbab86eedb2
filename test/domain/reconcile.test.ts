// The W3C Reconciliation Service API (0.2, as OpenRefine speaks it): the manifest, parsing of
// `queries` (per-query errors, 413 beyond batchSize), the scoring of candidates, and the
// suggest, preview and property pieces that need no database. Pure code: no server.
import { describe, expect, it } from 'vitest';
import {
  BatchTooLarge,
  manifest,
  MAX_QUERIES,
  parseBatch,
  rank,
  searchWords,
  type Entity,
  type ReconcileQuery,
} from '../../src/domain/catalog/reconcile/service.js';
import { proposeProperties } from '../../src/domain/catalog/reconcile/extend.js';
import { MAX_ID_TEXT, TYPE_STRICT } from '../../src/domain/catalog/reconcile/batch.js';
import { MAX_ASKED_LIMIT, MAX_LIMIT, nestsDeeperThan } from '../../src/domain/catalog/reconcile/input.js';
import { renderPreview } from '../../src/domain/catalog/reconcile/preview.js';
import { suggestProperties, suggestTypes } from '../../src/domain/catalog/reconcile/suggest.js';
import { fold, scoreName } from '../../src/domain/catalog/reconcile/similarity.js';
import { ACTOR_TYPES } from '../helpers/catalog.js';
import { thrown } from '../helpers/errors.js';

const person = [{ id: 'person', name: 'Person' }];
const entity = (id: number, name: string, alternativeNames: string[] = []): Entity => ({
  id,
  name,
  alternativeNames,
  type: person,
});

describe('manifest', () => {
  it('names the service and its spaces under the base URL it is given', () => {
    const m = manifest('actors', 'https://archive.example.org');
    expect(m.versions).toContain('0.2');
    expect(m.name).toBe('archivectl actors');
    expect(m.identifierSpace).toBe('https://archive.example.org/api/actors/');
    expect(typeof m.schemaSpace).toBe('string');
    expect(m.defaultTypes.map((t) => t.id)).toEqual(ACTOR_TYPES);
    expect(m.view).toEqual({ url: 'https://archive.example.org/api/actors/{{id}}' });
  });

  it('gives keywords no view (they have no page of their own)', () => {
    const m = manifest('keywords', 'http://h');
    expect(m.defaultTypes).toEqual([{ id: 'keyword', name: 'Keyword' }]);
    expect(m.view).toBeUndefined();
  });

  it('advertises 0.1 and 0.2 (JSONP is served for 0.1), batchSize 50, and its services under the base URL', () => {
    const m = manifest('places', 'https://archive.example.org/prefix');
    expect(m.versions).toEqual(['0.1', '0.2']);
    expect(m.batchSize).toBe(MAX_QUERIES);
    expect(MAX_QUERIES).toBe(50);
    const service = 'https://archive.example.org/prefix/api/places/reconcile';
    expect(m.preview).toEqual({ url: `${service}/preview/{{id}}`, width: 400, height: 200 });
    expect(m.suggest).toEqual({
      entity: { service_url: service, service_path: '/suggest/entity' },
      property: { service_url: service, service_path: '/suggest/property' },
      type: { service_url: service, service_path: '/suggest/type' },
    });
    expect(m.extend).toEqual({
      propose_properties: { service_url: service, service_path: '/properties' },
      property_settings: [],
    });
  });

  it('says how to send a token only when asked to (queries need one)', () => {
    expect(manifest('actors', 'http://h').authentication).toBeUndefined();
    expect(manifest('actors', 'http://h', { authentication: true }).authentication).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
  });
});

/** The usable queries of a batch (asserting there is no error entry). */
function usable(raw: unknown): ReconcileQuery[] {
  return parseBatch(raw).map((e) => {
    if ('error' in e) throw new Error(`${e.key}: ${e.error}`);
    return e.query;
  });
}

/** The error entries of a batch, by key. */
function errorsOf(raw: unknown): Record<string, string> {
  return Object.fromEntries(parseBatch(raw).flatMap((e) => ('error' in e ? [[e.key, e.error]] : [])));
}

describe('parseBatch', () => {
  it('reads JSON text (query string or form) and parsed JSON (a JSON body) alike', () => {
    const text = '{"q0": {"query": "Goethe", "limit": 3}, "q1": {"query": " Schiller ", "type": "person"}}';
    const expected = [
      { key: 'q0', query: 'Goethe', limit: 3, types: null, properties: [] },
      { key: 'q1', query: 'Schiller', limit: 5, types: ['person'], properties: [] },
    ];
    expect(usable(text)).toEqual(expected);
    expect(usable(JSON.parse(text))).toEqual(expected);
  });

  it('caps the limit at 100 and accepts a numeric string', () => {
    expect(usable({ q0: { query: 'a', limit: 1000 } })[0]?.limit).toBe(100);
    expect(usable({ q0: { query: 'a', limit: '7' } })[0]?.limit).toBe(7);
  });

  it(`answers at most ${MAX_LIMIT} candidates up to a limit of ${MAX_ASKED_LIMIT}, and refuses a larger one`, () => {
    expect(usable({ q0: { query: 'a', limit: MAX_ASKED_LIMIT } })[0]?.limit).toBe(MAX_LIMIT);
    expect(usable({ q0: { query: 'a', limit: String(MAX_ASKED_LIMIT) } })[0]?.limit).toBe(MAX_LIMIT);
    const errors = errorsOf({
      number: { query: 'a', limit: MAX_ASKED_LIMIT + 1 },
      text: { query: 'a', limit: String(MAX_ASKED_LIMIT + 1) },
      huge: { query: 'a', limit: 1e300 },
      ok: { query: 'a', limit: MAX_ASKED_LIMIT },
    });
    expect(Object.keys(errors).sort()).toEqual(['huge', 'number', 'text']);
    expect(errors.number).toMatch(/"limit" must be an integer from 1 to 1000000/);
  });

  it(`takes type_strict ${TYPE_STRICT.join(', ')} (and ignores it), refusing any other word`, () => {
    const words = Object.fromEntries(TYPE_STRICT.map((w) => [w, { query: 'a', type_strict: w }]));
    expect(usable(words).map((q) => q.key)).toEqual([...TYPE_STRICT]);
    expect(usable({ q0: { query: 'a', type_strict: 'any' } })).toEqual(usable({ q0: { query: 'a' } }));
    const errors = errorsOf({ bogus: { query: 'a', type_strict: 'bogus' }, number: { query: 'a', type_strict: 1 } });
    expect(Object.keys(errors).sort()).toEqual(['bogus', 'number']);
    expect(errors.bogus).toMatch(/"type_strict" must be "any", "all", "should"/);
  });

  it(`refuses a type or property id longer than ${MAX_ID_TEXT} characters`, () => {
    const long = 'x'.repeat(MAX_ID_TEXT + 1);
    const errors = errorsOf({
      type: { query: 'a', type: long },
      types: { query: 'a', type: ['person', long] },
      pid: { properties: [{ pid: long, v: 'x' }] },
      ok: { query: 'a', type: 'x'.repeat(MAX_ID_TEXT), properties: [{ pid: 'x'.repeat(MAX_ID_TEXT), v: 'x' }] },
    });
    expect(Object.keys(errors).sort()).toEqual(['pid', 'type', 'types']);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['not JSON', '{q0:'],
    ['a JSON array', '[{"query": "a"}]'],
    ['a JSON string', '"a"'],
    ['a number', 3],
    ['repeated', ['{}', '{}']],
    ['nested deeper than any batch', `{"q":${'{"q":'.repeat(50)}1${'}'.repeat(51)}`],
  ])('refuses a batch that is %s with a 422 on "queries"', (_what, raw) => {
    const err = thrown(() => parseBatch(raw));
    expect(err.kind).toBe('invalid');
    expect(err.fields).toHaveProperty('queries');
  });

  it('walks 100,000 levels of nesting without running out of stack', () => {
    const deep = JSON.parse(`{"q":${'{"q":'.repeat(100_000)}1${'}'.repeat(100_001)}`) as unknown;
    expect(thrown(() => parseBatch(deep)).fields).toHaveProperty('queries');
  });

  it(`refuses more than ${MAX_QUERIES} queries in one request as too large (413)`, () => {
    const many = Object.fromEntries(Array.from({ length: MAX_QUERIES + 1 }, (_, i) => [`q${i}`, { query: 'a' }]));
    let err: unknown;
    try {
      parseBatch(many);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BatchTooLarge);
    expect((err as BatchTooLarge).size).toBe(MAX_QUERIES + 1);
    expect(usable(Object.fromEntries(Object.entries(many).slice(0, MAX_QUERIES)))).toHaveLength(MAX_QUERIES);
  });

  it('gives each bad query its own error and keeps the others', () => {
    const errors = errorsOf({
      q0: { query: 1 },
      q1: 'x',
      q2: { query: 'a', limit: 0 },
      q3: { query: 'a', limit: 1.5 },
      q4: { query: 'a', type: 3 },
      q5: { query: 'x'.repeat(1001) },
      q6: { query: 'a\u0007b' },
      q7: { query: 'a\u009bb' },
      q8: { limit: 1 },
      q9: { properties: [] },
      q10: { properties: [{ pid: 'gnd' }] },
      q11: { properties: [{ pid: 'gnd', v: [[1]] }] },
      ok: { query: 'Goethe' },
    });
    expect(Object.keys(errors).sort()).toEqual(
      ['q0', 'q1', 'q10', 'q11', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8', 'q9'].sort(),
    );
    expect(errors.q5).toMatch(/at most 1000 characters/);
    expect(errors.q6).toMatch(/control characters/);
    expect(errors.q8).toMatch(/"query" or "properties"/);
    expect(usable({ ok: { query: 'Goethe' } })).toHaveLength(1);
  });

  it('accepts a query with properties and no query string (0.2), in both property forms', () => {
    const [q] = usable({
      q0: {
        properties: [
          { pid: 'gnd', v: 'https://d-nb.info/gnd/118540238' },
          { pid: 'city', v: ['Zürich', { id: 'x', name: 'X' }, 3] },
        ],
      },
    });
    expect(q).toMatchObject({
      query: '',
      properties: [
        { pid: 'gnd', values: ['https://d-nb.info/gnd/118540238'] },
        { pid: 'city', values: ['Zürich', 'x', '3'] },
      ],
    });
    const [q1] = usable({ q1: { properties: { gnd: '118540238' } } });
    expect(q1?.properties).toEqual([{ pid: 'gnd', values: ['118540238'] }]);
  });

  it('keeps a query key named __proto__ as an ordinary key', () => {
    const parsed = usable('{"__proto__": {"query": "a"}}');
    expect(parsed.map((q) => q.key)).toEqual(['__proto__']);
  });
});

describe('scoring', () => {
  it('scores an exact, case-insensitive match 100', () => {
    expect(scoreName('goethe, johann wolfgang von', 'Goethe, Johann Wolfgang von')).toBe(100);
    expect(scoreName('  GOETHE,   Johann Wolfgang von ', 'Goethe, Johann Wolfgang von')).toBe(100);
  });

  it('scores names that differ only in accents or punctuation 98', () => {
    expect(scoreName('Zurich', 'Zürich')).toBe(98);
    expect(scoreName('Muller Hans', 'Müller, Hans')).toBe(98);
  });

  it('ignores word order, just below an exact match', () => {
    const s = scoreName('Friedrich Schiller', 'Schiller, Friedrich');
    expect(s).toBeGreaterThanOrEqual(95);
    expect(s).toBeLessThan(98);
  });

  it('keeps every inexact score below 100 and ranks closer names higher', () => {
    const typo = scoreName('Schiler, Friedrich', 'Schiller, Friedrich');
    const partial = scoreName('Schiller', 'Schiller, Friedrich');
    const other = scoreName('Schiller', 'Goethe, Johann Wolfgang von');
    expect(typo).toBeLessThan(100);
    expect(typo).toBeGreaterThan(80);
    expect(partial).toBeGreaterThan(other);
    expect(other).toBeLessThan(30);
  });

  it('is 0..100 for anything, including empty and exotic strings', () => {
    for (const [a, b] of [
      ['', 'x'],
      ['x', ''],
      ['😀', '😀😀'],
      ['ß', 'SS'],
      ['a'.repeat(1000), 'a'],
    ]) {
      const s = scoreName(a as string, b as string);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(100);
    }
  });

  it('folds case, accents and punctuation', () => {
    expect(fold(' Müller-Lüdenscheidt,  Hans ')).toBe('muller ludenscheidt hans');
  });
});

describe('rank', () => {
  it('marks the only exact match as a match', () => {
    const result = rank('Goethe', [entity(1, 'Goethe'), entity(2, 'Goethe-Institut')], 5);
    expect(result[0]).toMatchObject({ id: '1', name: 'Goethe', score: 100, match: true, type: person });
    expect(result[1]).toMatchObject({ id: '2', match: false });
    expect(result[1]?.score).toBeLessThan(100);
  });

  it('marks no match when two names are exactly equal (ambiguous)', () => {
    const result = rank('Müller, Hans', [entity(1, 'Müller, Hans'), entity(2, 'müller, hans')], 5);
    expect(result.map((c) => [c.score, c.match])).toEqual([
      [100, false],
      [100, false],
    ]);
  });

  it('scores an exact alternative name 95, not a match', () => {
    const [c] = rank('J. W. Goethe', [entity(1, 'Goethe, Johann Wolfgang von', ['J. W. Goethe'])], 5);
    expect(c).toMatchObject({ score: 95, match: false });
  });

  it('orders by score and cuts at the limit; a whole-word match ranks above a compound', () => {
    const pool = [entity(2, 'Baselland'), entity(3, 'Basel-Land'), entity(1, 'Basel'), entity(4, 'Bern')];
    const result = rank('basel', pool, 3);
    expect(result.map((c) => c.id)).toEqual(['1', '3', '2']);
    expect(result[0]?.score).toBe(100);
    expect(result[1]?.score).toBeGreaterThan(result[2]?.score ?? 100);
  });

  it('breaks ties by name, then id', () => {
    const result = rank('zzz', [entity(5, 'Bb'), entity(4, 'Ba'), entity(3, 'Ba')], 5);
    expect(result.map((c) => c.id)).toEqual(['3', '4', '5']);
  });

  it('answers ids as strings, as the protocol wants', () => {
    expect(typeof rank('a', [entity(1, 'a')], 1)[0]?.id).toBe('string');
  });
});

describe('searchWords', () => {
  it('takes the longer words and the ends of long words, so typos and accents still find candidates', () => {
    expect(searchWords('Schiler, F.')).toEqual(['schiler', 'schi', 'iler']);
    expect(searchWords('Zurich')).toEqual(['zurich', 'zuri', 'rich']);
    expect(searchWords('a')).toEqual(['a']);
    expect(searchWords('%_')).toEqual([]);
  });
});

describe('rank with a fixed score (identifier or properties alone)', () => {
  it('scores every candidate the same and marks the only one found by an identifier as a match', () => {
    expect(rank('', [entity(7, 'Whatever name')], 5, 100)).toEqual([
      { id: '7', name: 'Whatever name', score: 100, match: true, type: person },
    ]);
    const two = rank('', [entity(2, 'B'), entity(1, 'A')], 5, 100);
    expect(two.map((c) => [c.id, c.match])).toEqual([
      ['1', false],
      ['2', false],
    ]);
    expect(rank('', [entity(3, 'C')], 5, 50)[0]).toMatchObject({ score: 50, match: false });
  });
});

describe('preview page', () => {
  it('escapes every value and names the record', () => {
    const html = renderPreview('actors', {
      id: 3,
      name: 'Evil <script>alert("x")</script> & Co',
      type: 'corporate_body',
      alternative_names: JSON.stringify(['<b>bold</b>']),
      gnd: '118540238',
      comment: `"quoted" 'single' ${'long '.repeat(100)}`,
    });
    expect(html).toContain('<h1>Evil &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co</h1>');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;b&gt;bold&lt;/b&gt;');
    expect(html).toContain('href="https://d-nb.info/gnd/118540238"');
    expect(html).toContain('<p>Corporate body</p>');
    expect(html).toContain('…');
  });
});

describe('property and type suggestions, property proposals', () => {
  const params = (prefix: string) => ({ prefix, cursor: 0, limit: 10, types: null });

  it('suggests the properties and types whose id or name contains the typed text, beginnings first', () => {
    expect(suggestProperties('places', params('geo')).result.map((p) => p.id)).toEqual(['geonames']);
    expect(suggestProperties('actors', params('date')).result.map((p) => p.id)).toEqual(['date_start', 'date_end']);
    expect(suggestProperties('keywords', params('')).result.map((p) => p.id)).toEqual(['name', 'gnd']);
    expect(suggestTypes('actors', params('corp')).result).toEqual([{ id: 'corporate_body', name: 'Corporate body' }]);
    expect(suggestTypes('actors', params('body')).result.map((t) => t.id)).toEqual(['corporate_body']);
    expect(suggestTypes('places', params('zzz')).result).toEqual([]);
  });

  it("proposes the register's properties for its types, none for a type it does not have", () => {
    const all = proposeProperties('actors', { type: 'person' });
    expect(all.type).toBe('person');
    const personProperties = ['name', 'type', 'alternative_names', 'date_start', 'date_end', 'gnd', 'comment'];
    expect(all.properties.map((p) => p.id)).toEqual(personProperties);
    expect(proposeProperties('actors', { type: 'Corporate body', limit: '2' })).toMatchObject({
      limit: 2,
      properties: [{ id: 'name' }, { id: 'type' }],
    });
    expect(proposeProperties('places', { type: 'person' }).properties).toEqual([]);
    expect(proposeProperties('places', {}).properties.map((p) => p.id)).toContain('geonames');
    expect(thrown(() => proposeProperties('places', { limit: '0' })).fields).toHaveProperty('limit');
    expect(thrown(() => proposeProperties('places', { type: ['a', 'b'] })).fields).toHaveProperty('type');
  });
});

describe('nesting', () => {
  it('tells a document that nests deeper than a limit, without recursion', () => {
    expect(nestsDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(nestsDeeperThan('text', 0)).toBe(false);
  });
});
