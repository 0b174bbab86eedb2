// Lists answer an RFC 8288 Link header (first, prev, next, last; with a cursor, next), and
// unknown query parameters are ignored, as the description says: OpenRefine and jQuery add
// `callback` and `_` to their requests.
import { beforeAll, expect, it } from 'vitest';
import { dataOf } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { daemon, api, t } = useDaemonWithTokens();

beforeAll(async () => {
  for (let i = 1; i <= 5; i++)
    expect((await api.post('/api/actors', { name: `Linked ${i}` }, t.editor)).status).toBe(201);
});

/** rel → URL (path and query) of a Link header. */
function links(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/<([^>]+)>; rel="(\w+)"/g)) {
    const url = new URL(m[1] as string);
    out[m[2] as string] = `${url.pathname}${url.search}`;
  }
  return out;
}

it('links the pages of a list, keeping its other parameters', async () => {
  const r = await api.get('/api/actors?search=linked&perPage=2&page=2&sortAsc=0', t.user);
  expect(r.status).toBe(200);
  expect(links(r.headers.get('link'))).toEqual({
    first: '/api/actors?search=linked&perPage=2&page=1&sortAsc=0',
    prev: '/api/actors?search=linked&perPage=2&page=1&sortAsc=0',
    next: '/api/actors?search=linked&perPage=2&page=3&sortAsc=0',
    last: '/api/actors?search=linked&perPage=2&page=3&sortAsc=0',
  });
  expect(r.headers.get('link')).toContain(daemon().url);
  const last = await api.get('/api/actors?search=linked&perPage=2&page=3', t.user);
  expect(Object.keys(links(last.headers.get('link')))).toEqual(['first', 'prev', 'last']);
});

it('gives a cursor list the next cursor only, and none after the last page', async () => {
  const r = await api.get('/api/actors?search=linked&perPage=3&cursor=start', t.user);
  const next = links(r.headers.get('link'));
  expect(Object.keys(next)).toEqual(['next']);
  const second = await api.get(next.next as string, t.user);
  expect(dataOf<unknown[]>(second)).toHaveLength(2);
  expect(second.headers.get('link')).toBeNull();
});

it("ignores unknown query parameters such as jQuery's `_` and a JSONP `callback` on a list", async () => {
  const plain = await api.get('/api/actors?search=linked', t.user);
  const extra = await api.get('/api/actors?search=linked&_=1700000000000&callback=jQuery1&unknown=x', t.user);
  expect(extra.status).toBe(200);
  expect(dataOf(extra)).toEqual(dataOf(plain));
});
