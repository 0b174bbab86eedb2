// SPEC §4.4 reconciliation (W3C Reconciliation Service API, as OpenRefine uses it) through a
// real daemon, for actors, places and keywords: the manifest, and candidates for GET and POST.
import { beforeAll, describe, expect, it } from 'vitest';
import { basicTokens, client, fieldsOf, loadCatalog, type BasicTokens, type Reply } from '../helpers/api.js';
import { useDaemon } from '../helpers/daemon.js';

const { cli, daemon } = useDaemon();
const api = client(daemon);
let t: BasicTokens;

interface Candidate {
  id: string;
  name: string;
  score: number;
  match: boolean;
}
type Answer = Record<string, { result: Candidate[] }>;

beforeAll(async () => {
  t = await basicTokens(cli());
  await loadCatalog(cli(), 'reconcile.json', {
    actors: [
      { name: 'Schiller, Friedrich', type: 'person', alternative_names: ['Friedrich von Schiller'] },
      { name: 'Goethe, Johann Wolfgang von', type: 'person' },
      { name: 'Schweizerisches Literaturarchiv', type: 'corporate_body' },
    ],
    places: [{ name: 'Zürich', country_code: 'CH' }, { name: 'Bern' }],
    keywords: ['Letters', 'Manuscripts'],
  });
});

const KINDS = ['actors', 'places', 'keywords'] as const;

const getQueries = (kind: string, queries: unknown) =>
  api.get(`/api/${kind}/reconcile?queries=${encodeURIComponent(typeof queries === 'string' ? queries : JSON.stringify(queries))}`, t.user);

function answerOf(r: Reply): Answer {
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  const answer = r.body as Answer;
  for (const value of Object.values(answer)) {
    expect(Array.isArray(value.result)).toBe(true);
    for (const c of value.result) {
      expect(typeof c.id).toBe('string');
      expect(typeof c.name).toBe('string');
      expect(typeof c.score).toBe('number');
      expect(typeof c.match).toBe('boolean');
    }
  }
  return answer;
}

describe('GET /api/{kind}/reconcile without queries', () => {
  it('answers the service manifest', async () => {
    for (const kind of KINDS) {
      const r = await api.get(`/api/${kind}/reconcile`, t.user);
      expect(r.status).toBe(200);
      const m = r.body as Record<string, unknown>;
      expect(typeof m.name, kind).toBe('string');
      expect(typeof m.identifierSpace, kind).toBe('string');
      expect(typeof m.schemaSpace, kind).toBe('string');
      expect(m.identifierSpace as string).toMatch(/^https?:\/\//);
    }
  });
});

describe('candidates', () => {
  it('GET with queries answers {"q0": {"result": [{id, name, score, match}]}}', async () => {
    const answer = answerOf(await getQueries('actors', { q0: { query: 'Schiller, Friedrich' }, q1: { query: 'goethe' } }));
    expect(Object.keys(answer).sort()).toEqual(['q0', 'q1']);
    const top = answer.q0?.result[0];
    expect(top).toMatchObject({ name: 'Schiller, Friedrich', score: 100, match: true });
    expect(answer.q1?.result[0]?.name).toBe('Goethe, Johann Wolfgang von');
    // the id is the actor's
    const actor = await api.get(`/api/actors/${top?.id}`, t.user);
    expect((actor.body as { data: { name: string } }).data.name).toBe('Schiller, Friedrich');
  });

  it('POST with queries as a form field or in a JSON body answers the same', async () => {
    const queries = { q0: { query: 'zurich' }, q1: { query: 'Bern' } };
    const viaGet = answerOf(await getQueries('places', queries));
    const form = await api.request('/api/places/reconcile', {
      method: 'POST',
      body: new URLSearchParams({ queries: JSON.stringify(queries) }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Bearer ${t.user}` },
    });
    const json = await api.post('/api/places/reconcile', { queries }, t.user);
    expect(answerOf(form)).toEqual(viaGet);
    expect(answerOf(json)).toEqual(viaGet);
    expect(viaGet.q0?.result[0]?.name).toBe('Zürich');
    expect(viaGet.q1?.result[0]).toMatchObject({ name: 'Bern', score: 100, match: true });
  });

  it('works for keywords, honours limit and answers an empty result for no match', async () => {
    const answer = answerOf(await getQueries('keywords', { q0: { query: 'letters' }, q1: { query: 'zzzzzz' }, q2: { query: 'e', limit: 1 } }));
    expect(answer.q0?.result[0]).toMatchObject({ name: 'Letters', score: 100, match: true });
    expect(answer.q1?.result).toEqual([]);
    expect(answer.q2?.result.length).toBeLessThanOrEqual(1);
  });

  it('scores an alternative name below an exact name and never as a match', async () => {
    const answer = answerOf(await getQueries('actors', { q0: { query: 'Friedrich von Schiller' } }));
    const top = answer.q0?.result[0];
    expect(top?.name).toBe('Schiller, Friedrich');
    expect(top?.score).toBeLessThan(100);
    expect(top?.match).toBe(false);
  });
});

describe('bad queries', () => {
  it('answers 422 naming queries', async () => {
    for (const kind of KINDS) {
      for (const queries of ['not json', '[]', '"q"', '1', 'null', '{"q0": "x"}', '{"q0": {}}', '{"q0": {"query": 5}}', '{"q0": {"query": "x", "limit": -1}}', '{"q0": {"query": "x", "limit": "many"}}', '{"q0": {"query": "x", "type": 5}}', `{"q0": {"query": "${'x'.repeat(1001)}"}}`]) {
        const r = await getQueries(kind, queries);
        const fields = fieldsOf(r);
        expect(Object.keys(fields).some((k) => k.startsWith('queries')), `${kind} ${queries.slice(0, 40)}: ${JSON.stringify(fields)}`).toBe(true);
      }
    }
  });

  it('answers 422 for too many queries, a repeated parameter, and a POST without queries', async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`q${i}`, { query: 'x' }]));
    expect(fieldsOf(await getQueries('actors', many))).toHaveProperty('queries');
    expect(fieldsOf(await api.get('/api/actors/reconcile?queries=%7B%7D&queries=%7B%7D', t.user))).toHaveProperty('queries');
    const empty = await api.request('/api/actors/reconcile', { method: 'POST', headers: { Authorization: `Bearer ${t.user}` } });
    expect(fieldsOf(empty)).toHaveProperty('queries');
    expect(fieldsOf(await api.post('/api/keywords/reconcile', { queries: 'nope' }, t.user))).toHaveProperty('queries');
    expect(fieldsOf(await api.post('/api/keywords/reconcile', { queries: [1, 2] }, t.user))).toHaveProperty('queries');
    expect((await api.post('/api/places/reconcile', '{"queries": ', t.user)).status).toBe(400);
  });
});
