// Conditional GET of the TEI exports (issue 9): a strong ETag (the content's SHA-256) and
// Last-Modified (when the content last changed) on every answer, GET and HEAD alike;
// If-None-Match, else If-Modified-Since, answers 304 without a body. The validators depend on the
// content only: a refresh that changes nothing keeps them, any change replaces them.
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, dataOf, type Reply } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';
import { ifNoneMatchHits } from '../../src/http/conditional.js';
import { nextModified } from '../../src/domain/catalog/tei/exports.js';

const { api, t } = useDaemonWithTokens();

const KINDS = ['actors', 'places', 'keywords'] as const;
const STRONG_ETAG = /^"[A-Za-z0-9_-]{43}"$/;

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return api.request(path, { method, headers: { ...bearer(t.user), ...headers } });
}

async function createActor(name: string): Promise<number> {
  const r = await api.post('/api/actors', { name }, t.editor);
  expect(r.status, r.text).toBe(201);
  return dataOf<{ id: number }>(r).id;
}

/** The validators of a 200 answer. */
function validators(r: Reply): { etag: string; lastModified: string } {
  expect(r.status, r.text.slice(0, 200)).toBe(200);
  const etag = r.headers.get('etag') ?? '';
  const lastModified = r.headers.get('last-modified') ?? '';
  expect(etag).toMatch(STRONG_ETAG);
  expect(Number.isNaN(Date.parse(lastModified)), lastModified).toBe(false);
  return { etag, lastModified };
}

function expectNotModified(r: Reply, etag: string): void {
  expect(r.status, r.text.slice(0, 200)).toBe(304);
  expect(r.text).toBe('');
  expect(r.headers.get('etag')).toBe(etag);
  // Asked with a token: no shared cache may keep it; the client's own may, revalidating.
  expect(r.headers.get('cache-control')).toBe('private, no-cache');
}

beforeAll(async () => {
  await createActor('Conditional, Carl');
  const place = await api.post('/api/places', { name: 'Basel', country_code: 'CH' }, t.editor);
  expect(place.status).toBe(201);
});

describe('validators on every TEI answer', () => {
  it('GET and HEAD of each export carry the same strong ETag, Last-Modified and Cache-Control: private, no-cache', async () => {
    for (const kind of KINDS) {
      const g = await get(`/api/tei/${kind}`);
      const h = await get(`/api/tei/${kind}`, {}, 'HEAD');
      const v = validators(g);
      expect(validators(h)).toEqual(v);
      expect(h.text).toBe('');
      expect(g.headers.get('cache-control')).toBe('private, no-cache');
      expect(h.headers.get('cache-control')).toBe('private, no-cache');
      // Last-Modified is never later than the answer's own Date (RFC 9110 §8.8.2.1).
      expect(Date.parse(v.lastModified)).toBeLessThanOrEqual(Date.parse(g.headers.get('date') ?? ''));
    }
  });

  it('the ETag is the SHA-256 of the body, and stays the same across refreshes when nothing changed', async () => {
    const { createHash } = await import('node:crypto');
    for (const kind of KINDS) {
      const first = await get(`/api/tei/${kind}`);
      expect(validators(first).etag).toBe(`"${createHash('sha256').update(first.text, 'utf8').digest('base64url')}"`);
      expect((await get('/api/tei/refresh')).status).toBe(200);
      const again = await get(`/api/tei/${kind}`);
      expect(validators(again)).toEqual(validators(first));
      expect(again.text).toBe(first.text);
    }
  });

  it('?ids= answers the export with the same validators', async () => {
    const id = await createActor('Ids, Ida');
    const plain = await get('/api/tei/actors');
    const withIds = await get(`/api/tei/actors?ids=${id}`);
    expect(validators(withIds).etag).toBe(validators(plain).etag);
    expect(withIds.text).toBe(plain.text);
    expect(withIds.text).toContain('Ids, Ida');
  });
});

describe('If-None-Match', () => {
  it('answers 304 without a body for the current ETag, on GET and HEAD, for each export', async () => {
    for (const kind of KINDS) {
      const { etag } = validators(await get(`/api/tei/${kind}`));
      expectNotModified(await get(`/api/tei/${kind}`, { 'If-None-Match': etag }), etag);
      expectNotModified(await get(`/api/tei/${kind}`, { 'If-None-Match': etag }, 'HEAD'), etag);
    }
  });

  it('matches the weak form, a tag in a list, and *; another tag gets 200 with the document', async () => {
    const { etag } = validators(await get('/api/tei/places'));
    expectNotModified(await get('/api/tei/places', { 'If-None-Match': `W/${etag}` }), etag);
    expectNotModified(await get('/api/tei/places', { 'If-None-Match': `"other", ${etag}, W/"more"` }), etag);
    expectNotModified(await get('/api/tei/places', { 'If-None-Match': '*' }), etag);
    const other = await get('/api/tei/places', { 'If-None-Match': '"not-the-tag"' });
    expect(validators(other).etag).toBe(etag);
    expect(other.text).toContain('Basel');
  });

  it('decides alone when present: a matching If-Modified-Since does not turn a mismatch into a 304', async () => {
    const { lastModified } = validators(await get('/api/tei/actors'));
    const r = await get('/api/tei/actors', { 'If-None-Match': '"stale"', 'If-Modified-Since': lastModified });
    expect(r.status).toBe(200);
    expect(r.text).toContain('Conditional, Carl');
  });

  it('after a change the old ETag gets 200 with the new document and a new ETag', async () => {
    const before = validators(await get('/api/tei/actors'));
    await createActor('Changed, Chris');
    const r = await get('/api/tei/actors', { 'If-None-Match': before.etag });
    expect(r.status).toBe(200);
    expect(r.text).toContain('Changed, Chris');
    const after = validators(r);
    expect(after.etag).not.toBe(before.etag);
    expect(Date.parse(after.lastModified)).toBeGreaterThanOrEqual(Date.parse(before.lastModified));
    expectNotModified(await get('/api/tei/actors', { 'If-None-Match': after.etag }), after.etag);
  });
});

describe('If-Modified-Since', () => {
  it('answers 304 for Last-Modified or later, 200 for earlier or unreadable dates', async () => {
    // Places and keywords have not changed since their first export here, so their content's
    // time is in the past. (Content that changed twice within one second gets the next second as
    // its time, and a Last-Modified clamped to now until then: see the next test.)
    for (const kind of ['places', 'keywords']) {
      const { etag, lastModified } = validators(await get(`/api/tei/${kind}`));
      const at = Date.parse(lastModified);
      expectNotModified(await get(`/api/tei/${kind}`, { 'If-Modified-Since': lastModified }), etag);
      expectNotModified(
        await get(`/api/tei/${kind}`, { 'If-Modified-Since': new Date(at + 3_600_000).toUTCString() }),
        etag,
      );
      expectNotModified(await get(`/api/tei/${kind}`, { 'If-Modified-Since': lastModified }, 'HEAD'), etag);
      for (const since of [new Date(at - 1000).toUTCString(), 'yesterday', '']) {
        const r = await get(`/api/tei/${kind}`, since === '' ? {} : { 'If-Modified-Since': since });
        expect(r.status, since).toBe(200);
        expect(r.text).toContain('<TEI');
      }
    }
  });

  it('never hides a change, even one made in the same second as the last one', async () => {
    // Several changes in quick succession: each time the Last-Modified the client holds must no
    // longer count as "not modified" for the new content.
    for (let i = 0; i < 3; i++) {
      const before = validators(await get('/api/tei/actors'));
      await createActor(`Quick, Quentin ${i}`);
      const r = await get('/api/tei/actors', { 'If-Modified-Since': before.lastModified });
      expect(r.status, `change ${i}`).toBe(200);
      expect(r.text).toContain(`Quick, Quentin ${i}`);
    }
  });
});

describe('the rules behind the validators', () => {
  it('If-None-Match: weak comparison, lists and the wildcard (RFC 9110 §13.1.2)', () => {
    expect(ifNoneMatchHits('"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('W/"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('"x", W/"abc" ,"y"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits(' * ', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('"abcd"', '"abc"')).toBe(false);
    expect(ifNoneMatchHits('abc', '"abc"')).toBe(false);
    expect(ifNoneMatchHits('', '"abc"')).toBe(false);
  });

  it('new content lies in a later second than the content before it, never later than needed', () => {
    const now = new Date('2026-11-22T10:00:30.500Z');
    // The data's last change when it is later than the previous content's second.
    expect(nextModified('2026-11-22T10:00:10.900Z', '2026-11-22T10:00:20.250Z', now)).toBe('2026-11-22T10:00:20.250Z');
    // A change committed late with an older updated_at, or in the same second: the next second.
    expect(nextModified('2026-11-22T10:00:10.900Z', '2026-11-22T10:00:05.000Z', now)).toBe('2026-11-22T10:00:11.000Z');
    expect(nextModified('2026-11-22T10:00:10.100Z', '2026-11-22T10:00:10.800Z', now)).toBe('2026-11-22T10:00:11.000Z');
    // No previous content: the data's last change; never in the future; now when unknown.
    expect(nextModified(null, '2026-11-22T09:00:00.000Z', now)).toBe('2026-11-22T09:00:00.000Z');
    expect(nextModified(null, '2027-01-01T00:00:00.000Z', now)).toBe(now.toISOString());
    expect(nextModified(null, null, now)).toBe(now.toISOString());
  });
});
