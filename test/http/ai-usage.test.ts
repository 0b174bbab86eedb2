// docs/http-api.md#http-api AI-cataloging usage records through a real daemon: POST /api/ai-cataloging/usage
// answers 201 {"id": n}; every bad field is a 422 naming it in `fields`.
import { describe, expect, it } from 'vitest';
import { fieldsOf } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { api, t } = useDaemonWithTokens();

const URL_ = '/api/ai-cataloging/usage';
const GOOD = { provider: 'x', model: 'y', tokens_in: 1, tokens_out: 2, cost_chf: 0.01, success: true };
const REQUIRED = ['provider', 'model', 'tokens_in', 'tokens_out', 'cost_chf', 'success'] as const;

async function record(body: unknown): Promise<number> {
  const r = await api.post(URL_, body, t.editor);
  expect(r.status, r.text).toBe(201);
  expect(Object.keys(r.body as object)).toEqual(['id']);
  const id = (r.body as { id: unknown }).id;
  expect(Number.isInteger(id)).toBe(true);
  return id as number;
}

describe('POST /api/ai-cataloging/usage', () => {
  it('answers 201 {"id": n} with a new id each time', async () => {
    const first = await record(GOOD);
    const second = await record({ ...GOOD, success: false, tokens_in: 0, tokens_out: 0, cost_chf: 0 });
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
  });

  it('takes the optional fields at their limits', async () => {
    await record({
      ...GOOD,
      latency_ms: 1234,
      profile_slug: 'letters-de',
      entry_uuid: '0b6f3b1c-9f5e-4b1e-8c49-6f2a7d1e0c11',
      source: 's'.repeat(32),
    });
    await record({ ...GOOD, latency_ms: null, profile_slug: null, entry_uuid: null, source: null });
    await record({ ...GOOD, tokens_in: 9_007_199_254_740_991, cost_chf: 12345.6789 });
  });

  it('takes a urlencoded form, whose values are strings', async () => {
    const r = await api.request(URL_, {
      method: 'POST',
      body: 'provider=openai&model=gpt&tokens_in=10&tokens_out=20&cost_chf=0.0125&success=true&latency_ms=5',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Bearer ${t.editor}` },
    });
    expect(r.status, r.text).toBe(201);
    const bad = await api.request(URL_, {
      method: 'POST',
      body: 'provider=openai&model=gpt&tokens_in=ten&tokens_out=20&cost_chf=0.01&success=maybe',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Bearer ${t.editor}` },
    });
    expect(Object.keys(fieldsOf(bad)).sort()).toEqual(['success', 'tokens_in']);
  });

  it('names a missing required field in fields', async () => {
    for (const field of REQUIRED) {
      const body: Record<string, unknown> = { ...GOOD };
      delete body[field];
      const r = await api.post(URL_, body, t.editor);
      expect(Object.keys(fieldsOf(r)), `without ${field}`).toEqual([field]);
      const nulled = await api.post(URL_, { ...GOOD, [field]: null }, t.editor);
      expect(Object.keys(fieldsOf(nulled)), `${field}: null`).toEqual([field]);
    }
  });

  it('names each bad field in fields', async () => {
    const cases: [string, unknown][] = [
      ['provider', ''],
      ['provider', '   '],
      ['provider', 5],
      ['provider', 'p'.repeat(65)],
      ['model', ''],
      ['model', ['gpt']],
      ['model', 'm'.repeat(129)],
      ['tokens_in', -1],
      ['tokens_in', 1.5],
      ['tokens_in', '1'],
      ['tokens_in', true],
      ['tokens_in', 9_007_199_254_740_992],
      ['tokens_out', -2],
      ['tokens_out', 'two'],
      ['tokens_out', {}],
      ['cost_chf', -0.01],
      ['cost_chf', '0.01'],
      ['cost_chf', false],
      ['success', 'yes'],
      ['success', 1],
      ['success', 'true'],
      ['latency_ms', -5],
      ['latency_ms', 'x'],
      ['latency_ms', 1.5],
      ['latency_ms', 2_147_483_648],
      ['profile_slug', 7],
      ['profile_slug', 'p'.repeat(129)],
      ['entry_uuid', 'u'.repeat(37)],
      ['entry_uuid', 12],
      ['source', 's'.repeat(33)],
      ['source', 3],
    ];
    for (const [field, value] of cases) {
      const r = await api.post(URL_, { ...GOOD, [field]: value }, t.editor);
      expect(Object.keys(fieldsOf(r)), `${field}: ${JSON.stringify(value).slice(0, 40)}`).toEqual([field]);
    }
  });

  it('refuses an unknown field, naming it, and names every bad field of one request', async () => {
    const unknown = await api.post(URL_, { ...GOOD, temperature: 0.2 }, t.editor);
    expect(Object.keys(fieldsOf(unknown))).toEqual(['temperature']);
    const all = await api.post(
      URL_,
      { provider: '', tokens_in: -1, cost_chf: 'x', success: 'no', entry_uuid: 'u'.repeat(40) },
      t.editor,
    );
    expect(Object.keys(fieldsOf(all)).sort()).toEqual(
      ['cost_chf', 'entry_uuid', 'model', 'provider', 'success', 'tokens_in', 'tokens_out'].sort(),
    );
  });

  // The database-unavailable check reads error messages; a client's own words in a refusal
  // must not turn it into a 503 that says the database is away.
  it('answers 422, not 503, for an unknown field named like a database failure', async () => {
    const r = await api.post(URL_, { ...GOOD, 'Connection terminated unexpectedly': 1 }, t.editor);
    expect(r.status, r.text).toBe(422);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(Object.keys(fieldsOf(r))).toEqual(['Connection terminated unexpectedly']);
  });

  it('names at most ten unknown fields, each cut to 64 characters, as the record endpoints do', async () => {
    const extra = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`${i}-${'k'.repeat(100)}`, 1]));
    const r = await api.post(URL_, { ...GOOD, ...extra }, t.editor);
    const names = Object.keys(fieldsOf(r));
    expect(names).toHaveLength(10);
    for (const name of names) expect(name).toMatch(/^\d+-k+…$/);
    for (const name of names) expect([...name]).toHaveLength(65);
    expect(r.text.length).toBeLessThan(2000);
  });

  it('answers 422 for an empty body or a JSON array, 400 for malformed JSON, 415 for text/plain', async () => {
    const empty = await api.request(URL_, { method: 'POST', headers: { Authorization: `Bearer ${t.editor}` } });
    expect(Object.keys(fieldsOf(empty)).sort()).toEqual([...REQUIRED].sort());
    expect((await api.post(URL_, [GOOD], t.editor)).status).toBe(422);
    expect((await api.post(URL_, '{"provider": ', t.editor)).status).toBe(400);
    const text = await api.request(URL_, {
      method: 'POST',
      body: JSON.stringify(GOOD),
      headers: { 'Content-Type': 'text/plain', Authorization: `Bearer ${t.editor}` },
    });
    expect(text.status).toBe(415);
  });

  it('answers 405 with Allow for GET', async () => {
    const r = await api.get(URL_, t.editor);
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toContain('POST');
  });
});
