// docs/http-api.md#http-api reconciliation (W3C Reconciliation Service API 0.2, as OpenRefine uses it) through
// a real daemon, for actors, places and keywords: the manifest (its URLs from publicUrl, never
// from Host), candidates for GET and POST, batches (413 above batchSize, a bad query answered
// alone) and queries with properties.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldsOf, loadCatalog, type Reply } from '../helpers/api.js';
import { createSandbox, type Sandbox, asAdministrator } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, daemon, api, t } = useDaemonWithTokens();

interface Candidate {
  id: string;
  name: string;
  score: number;
  match: boolean;
}
type Answer = Record<string, { result: Candidate[] }>;

interface ServicePath {
  service_url: string;
  service_path: string;
}
interface Manifest {
  versions: string[];
  identifierSpace: string;
  schemaSpace: string;
  view?: { url: string };
  preview: { url: string; width: number; height: number };
  suggest: { entity: ServicePath; property: ServicePath; type: ServicePath };
  extend: { propose_properties: ServicePath };
  batchSize: number;
  authentication?: Record<string, unknown>;
}

beforeAll(async () => {
  await loadCatalog(cli(), 'reconcile.json', {
    actors: [
      { name: 'Schiller, Friedrich', type: 'person', alternative_names: ['Friedrich von Schiller'], gnd: '118607626' },
      { name: 'Goethe, Johann Wolfgang von', type: 'person' },
      { name: 'Schweizerisches Literaturarchiv', type: 'corporate_body' },
    ],
    places: [
      { name: 'Zürich', country_code: 'CH', geonames: '2657896' },
      { name: 'Bern', country_code: 'CH' },
    ],
    keywords: ['Letters', 'Manuscripts'],
  });
});

const KINDS = ['actors', 'places', 'keywords'] as const;

const getQueries = (kind: string, queries: unknown) =>
  api.get(
    `/api/${kind}/reconcile?queries=${encodeURIComponent(typeof queries === 'string' ? queries : JSON.stringify(queries))}`,
    t.user,
  );

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

  it('advertises the versions it meets, batchSize 50, and suggest, preview and extend under the origin the client used (no publicUrl)', async () => {
    for (const kind of KINDS) {
      const m = (await api.get(`/api/${kind}/reconcile`, t.user)).body as Manifest;
      const origin = new URL(daemon().url).origin;
      const service = `${origin}/api/${kind}/reconcile`;
      expect(m.versions).toEqual(['0.1', '0.2']);
      expect(m.batchSize).toBe(50);
      expect(m.identifierSpace).toBe(`${origin}/api/${kind}/`);
      expect(m.preview.url).toBe(`${service}/preview/{{id}}`);
      expect(m.suggest.entity).toEqual({ service_url: service, service_path: '/suggest/entity' });
      expect(m.suggest.property.service_path).toBe('/suggest/property');
      expect(m.suggest.type.service_path).toBe('/suggest/type');
      expect(m.extend.propose_properties).toEqual({ service_url: service, service_path: '/properties' });
    }
  });

  it('says how to send a token while queries need one (public_access off)', async () => {
    const m = (await api.get('/api/actors/reconcile', t.user)).body as Manifest;
    expect(m.authentication).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
  });
});

describe('with publicUrl configured', () => {
  let box: Sandbox | undefined;
  let other: RunningDaemon | undefined;
  const PUBLIC = 'https://archive.example.org/archive';

  beforeAll(async () => {
    box = await createSandbox();
    await patchConfig(box, { publicUrl: PUBLIC });
    other = await startDaemon(box);
    const r = await box.run(['settings', 'set', 'public_access', 'on', ...(await asAdministrator(box))]);
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(async () => {
    await other?.stop();
    await box?.cleanup();
  });

  /** The manifest as answered to a request with this Host header (node:http lets a test set it). */
  function manifestWithHost(kind: string, host: string): Promise<Manifest> {
    const url = new URL(`/api/${kind}/reconcile`, other?.url);
    return new Promise((resolve, reject) => {
      const req = http.get(url, { headers: { Host: host }, timeout: 10_000 }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          try {
            expect(res.statusCode, text).toBe(200);
            resolve(JSON.parse(text) as Manifest);
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
    });
  }

  it('builds every URL of the manifest from publicUrl, whatever Host the client sent', async () => {
    for (const kind of KINDS) {
      for (const host of ['evil.example', '127.0.0.1', 'archive.example.org:8443']) {
        const m = await manifestWithHost(kind, host);
        const urls = [
          m.identifierSpace,
          m.schemaSpace,
          m.view?.url,
          m.preview.url,
          m.suggest.entity.service_url,
          m.suggest.property.service_url,
          m.suggest.type.service_url,
          m.extend.propose_properties.service_url,
        ].filter((u): u is string => u !== undefined);
        for (const u of urls) expect(u.startsWith(`${PUBLIC}/api/${kind}/`), `${kind} ${host}: ${u}`).toBe(true);
        expect(JSON.stringify(m)).not.toContain(host === '127.0.0.1' ? '127.0.0.1' : host);
        // public_access on: queries need no token, so the manifest asks for none.
        expect(m.authentication).toBeUndefined();
      }
    }
  });
});

describe('candidates', () => {
  it('GET with queries answers {"q0": {"result": [{id, name, score, match}]}}', async () => {
    const answer = answerOf(
      await getQueries('actors', { q0: { query: 'Schiller, Friedrich' }, q1: { query: 'goethe' } }),
    );
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
    const answer = answerOf(
      await getQueries('keywords', { q0: { query: 'letters' }, q1: { query: 'zzzzzz' }, q2: { query: 'e', limit: 1 } }),
    );
    expect(answer.q0?.result[0]).toMatchObject({ name: 'Letters', score: 100, match: true });
    expect(answer.q1?.result).toEqual([]);
    expect(answer.q2?.result.length).toBeLessThanOrEqual(1);
  });

  it('answers at most 100 candidates for a limit up to 1,000,000, and takes any type_strict of 0.2', async () => {
    const answer = answerOf(
      await getQueries('keywords', {
        q0: { query: 'e', limit: 1_000_000 },
        q1: { query: 'e', limit: 1_000_000, type_strict: 'should' },
        q2: { query: 'e', type_strict: 'all' },
        q3: { query: 'e', type_strict: 'any' },
      }),
    );
    for (const key of ['q0', 'q1', 'q2', 'q3']) expect(answer[key], key).not.toHaveProperty('error');
    expect(answer.q0?.result.length).toBeGreaterThan(0);
    expect(answer.q0?.result.length).toBeLessThanOrEqual(100);
    expect(answer.q1?.result).toEqual(answer.q0?.result);
  });

  it('scores an alternative name below an exact name and never as a match', async () => {
    const answer = answerOf(await getQueries('actors', { q0: { query: 'Friedrich von Schiller' } }));
    const top = answer.q0?.result[0];
    expect(top?.name).toBe('Schiller, Friedrich');
    expect(top?.score).toBeLessThan(100);
    expect(top?.match).toBe(false);
  });
});

describe('bad batches', () => {
  it('answers 422 naming queries when the batch is not one JSON object', async () => {
    for (const kind of KINDS) {
      for (const queries of ['not json', '[]', '"q"', '1', 'null', `{"q":${'{"q":'.repeat(40)}1${'}'.repeat(41)}`]) {
        const r = await getQueries(kind, queries);
        const fields = fieldsOf(r);
        expect(
          Object.keys(fields).some((k) => k.startsWith('queries')),
          `${kind} ${queries.slice(0, 40)}: ${JSON.stringify(fields)}`,
        ).toBe(true);
      }
    }
  });

  it('answers 422 for a repeated parameter, a POST without queries, and queries that are not an object', async () => {
    expect(fieldsOf(await api.get('/api/actors/reconcile?queries=%7B%7D&queries=%7B%7D', t.user))).toHaveProperty(
      'queries',
    );
    const empty = await api.request('/api/actors/reconcile', {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.user}` },
    });
    expect(fieldsOf(empty)).toHaveProperty('queries');
    expect(fieldsOf(await api.post('/api/keywords/reconcile', { queries: 'nope' }, t.user))).toHaveProperty('queries');
    expect(fieldsOf(await api.post('/api/keywords/reconcile', { queries: [1, 2] }, t.user))).toHaveProperty('queries');
    expect((await api.post('/api/places/reconcile', '{"queries": ', t.user)).status).toBe(400);
  });

  it('answers a batch above the batchSize (50) with 413 and a JSON error, by GET and by POST', async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`q${i}`, { query: 'x' }]));
    for (const r of [
      await getQueries('actors', many),
      await api.post('/api/actors/reconcile', { queries: many }, t.user),
    ]) {
      expect(r.status).toBe(413);
      expect((r.body as { error: string }).error).toMatch(/at most 50 queries/);
    }
    const fifty = Object.fromEntries(Object.entries(many).slice(0, 50));
    expect(Object.keys(answerOf(await api.post('/api/actors/reconcile', { queries: fifty }, t.user)))).toHaveLength(50);
  });
});

describe('bad queries in a batch', () => {
  it('answer that query with no candidates and an error, and the others as usual', async () => {
    for (const kind of KINDS) {
      const bad: Record<string, unknown> = {
        long: { query: 'x'.repeat(1001) },
        control: { query: 'Bern\u0007' },
        c1: { query: 'Bern\u009b' },
        number: { query: 5 },
        string: 'x',
        empty: {},
        limit: { query: 'x', limit: -1 },
        words: { query: 'x', limit: 'many' },
        type: { query: 'x', type: 5 },
        longType: { query: 'x', type: 'x'.repeat(256) },
        props: { properties: [{ pid: 'gnd' }] },
        huge: { query: 'x', limit: 1_000_001 },
        strict: { query: 'x', type_strict: 'bogus' },
      };
      const good = { query: kind === 'actors' ? 'Goethe' : kind === 'places' ? 'Bern' : 'Letters' };
      const answer = answerOf(await getQueries(kind, { ...bad, good }));
      expect(Object.keys(answer).sort(), kind).toEqual([...Object.keys(bad), 'good'].sort());
      for (const key of Object.keys(bad)) {
        expect(answer[key]?.result, `${kind} ${key}`).toEqual([]);
        expect(typeof (answer[key] as { error?: unknown }).error, `${kind} ${key}`).toBe('string');
      }
      expect(answer.good?.result.length, kind).toBeGreaterThan(0);
      expect((answer.good as { error?: unknown }).error).toBeUndefined();
    }
  });
});

describe('queries with properties (0.2)', () => {
  it('accept a query without a query string and find the entity by its GND or GeoNames id', async () => {
    const byGnd = answerOf(
      await api.post(
        '/api/actors/reconcile',
        { queries: { q0: { properties: [{ pid: 'gnd', v: 'https://d-nb.info/gnd/118607626' }] } } },
        t.user,
      ),
    );
    expect(byGnd.q0?.result).toEqual([
      expect.objectContaining({ name: 'Schiller, Friedrich', score: 100, match: true }),
    ]);
    const byGeonames = answerOf(
      await getQueries('places', { q0: { properties: [{ pid: 'geonames', v: '2657896' }] } }),
    );
    expect(byGeonames.q0?.result.map((c) => c.name)).toEqual(['Zürich']);
    const unknown = answerOf(await getQueries('places', { q0: { properties: [{ pid: 'geonames', v: '1' }] } }));
    expect(unknown.q0?.result).toEqual([]);
  });

  it('narrow name candidates like a WHERE clause, and an identifier finds a record spelled otherwise', async () => {
    const bern = answerOf(
      await getQueries('places', {
        q0: { query: 'Bern', properties: [{ pid: 'country_code', v: 'DE' }] },
        q1: { query: 'Bern', properties: [{ pid: 'country_code', v: 'ch' }] },
      }),
    );
    expect(bern.q0?.result).toEqual([]);
    expect(bern.q1?.result[0]).toMatchObject({ name: 'Bern', score: 100, match: true });
    const typo = answerOf(
      await getQueries('actors', { q0: { query: 'Frederick Shiller', properties: [{ pid: 'gnd', v: '118607626' }] } }),
    );
    expect(typo.q0?.result[0]).toMatchObject({ name: 'Schiller, Friedrich', score: 100, match: true });
  });

  it('filter by type, accepting a type id or name, and find nothing for a type the register lacks', async () => {
    const answer = answerOf(
      await getQueries('actors', {
        a: { query: 'Schweizerisches Literaturarchiv', type: 'corporate_body' },
        b: { query: 'Schweizerisches Literaturarchiv', type: 'Person' },
        c: { query: 'Goethe', type: 'place' },
        d: { query: 'Schweizerisches Literaturarchiv', type: 'Corporate body' },
      }),
    );
    expect(answer.a?.result[0]).toMatchObject({ name: 'Schweizerisches Literaturarchiv', match: true });
    expect(answer.b?.result).toEqual([]);
    expect(answer.c?.result).toEqual([]);
    expect(answer.d?.result[0]).toMatchObject({ name: 'Schweizerisches Literaturarchiv', match: true });
  });
});
