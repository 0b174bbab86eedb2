// The W3C Reconciliation Service API (0.2, as OpenRefine speaks it): the manifest, parsing of
// `queries`, and the scoring of candidates. Pure code: no database, no server.
import { describe, expect, it } from 'vitest';
import { manifest, MAX_QUERIES, parseQueries, rank, searchWords, type Entity } from '../../src/domain/catalog/reconcile.js';
import { fold, scoreName } from '../../src/domain/catalog/similarity.js';
import { AppError } from '../../src/errors.js';

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected an error');
}

const person = [{ id: 'person', name: 'Person' }];
const entity = (id: number, name: string, alternativeNames: string[] = []): Entity => ({ id, name, alternativeNames, type: person });

describe('manifest', () => {
  it('names the service and its spaces under the origin the client used', () => {
    const m = manifest('actors', 'https://archive.example.org');
    expect(m.versions).toContain('0.2');
    expect(m.name).toBe('archivectl actors');
    expect(m.identifierSpace).toBe('https://archive.example.org/api/actors/');
    expect(typeof m.schemaSpace).toBe('string');
    expect(m.defaultTypes.map((t) => t.id)).toEqual(['person', 'family', 'corporate_body', 'organisational_unit', 'group', 'software']);
    expect(m.view).toEqual({ url: 'https://archive.example.org/api/actors/{{id}}' });
  });

  it('gives keywords no view (they have no page of their own)', () => {
    const m = manifest('keywords', 'http://h');
    expect(m.defaultTypes).toEqual([{ id: 'keyword', name: 'Keyword' }]);
    expect(m.view).toBeUndefined();
  });
});

describe('parseQueries', () => {
  it('reads JSON text (query string or form) and parsed JSON (a JSON body) alike', () => {
    const text = '{"q0": {"query": "Goethe", "limit": 3}, "q1": {"query": " Schiller ", "type": "person"}}';
    const expected = [
      { key: 'q0', query: 'Goethe', limit: 3, types: null },
      { key: 'q1', query: 'Schiller', limit: 5, types: ['person'] },
    ];
    expect(parseQueries(text)).toEqual(expected);
    expect(parseQueries(JSON.parse(text))).toEqual(expected);
  });

  it('caps the limit at 100 and accepts a numeric string', () => {
    expect(parseQueries({ q0: { query: 'a', limit: 1000 } })[0]?.limit).toBe(100);
    expect(parseQueries({ q0: { query: 'a', limit: '7' } })[0]?.limit).toBe(7);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['not JSON', '{q0:'],
    ['a JSON array', '[{"query": "a"}]'],
    ['a JSON string', '"a"'],
    ['a number', 3],
    ['repeated', ['{}', '{}']],
  ])('refuses queries that are %s with a 422 on "queries"', (_what, raw) => {
    const err = thrown(() => parseQueries(raw));
    expect(err.kind).toBe('invalid');
    expect(err.fields).toHaveProperty('queries');
  });

  it(`refuses more than ${MAX_QUERIES} queries in one request`, () => {
    const many = Object.fromEntries(Array.from({ length: MAX_QUERIES + 1 }, (_, i) => [`q${i}`, { query: 'a' }]));
    expect(thrown(() => parseQueries(many)).fields).toEqual({ queries: `at most ${MAX_QUERIES} queries per request` });
    expect(parseQueries(Object.fromEntries(Object.entries(many).slice(0, MAX_QUERIES)))).toHaveLength(MAX_QUERIES);
  });

  it('names the bad query and field', () => {
    const err = thrown(() => parseQueries({ q0: { query: 1 }, q1: 'x', q2: { query: 'a', limit: 0 }, q3: { query: 'a', limit: 1.5 }, q4: { query: 'a', type: 3 } }));
    expect(err.fields).toEqual({
      'queries.q0.query': 'required, a string',
      'queries.q1': 'must be an object with "query"',
      'queries.q2.limit': 'must be a positive integer',
      'queries.q3.limit': 'must be a positive integer',
      'queries.q4.type': 'must be a type id or an array of type ids',
    });
  });

  it('keeps a query key named __proto__ as an ordinary key', () => {
    const parsed = parseQueries('{"__proto__": {"query": "a"}}');
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
    for (const [a, b] of [['', 'x'], ['x', ''], ['😀', '😀😀'], ['ß', 'SS'], ['a'.repeat(1000), 'a']]) {
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
