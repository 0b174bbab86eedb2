// Lists answer an RFC 8288 Link header (first, prev, next, last; with a cursor, next), and
// unknown query parameters are ignored, as the description says: OpenRefine and jQuery add
// `callback` and `_` to their requests.
import net from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { dataOf } from '../helpers/api.js';
import { logEntries } from '../helpers/daemon.js';
import { useDaemonWithTokens } from '../helpers/http.js';
import { until } from '../helpers/until.js';

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

it("sends no links for a query string so long that four copies would overflow a client's limit on heads", async () => {
  const many = Array.from({ length: 300 }, (_, i) => `p${i}=${i}`).join('&');
  const r = await api.get(`/api/actors?search=linked&${many}`, t.user);
  expect(r.status).toBe(200);
  expect(r.headers.get('link')).toBeNull();
});

it('answers a list whose client hung up without a server error (its links need no socket)', async () => {
  const { host, hostname, port } = new URL(daemon().url);
  const requests = () =>
    logEntries(daemon()).filter(
      (e) => e.msg === 'request' && String(e.path).startsWith('/api/actors?search=linked&perPage=2'),
    );
  const before = requests().length;
  // The request is sent and the connection closed at once: the list is read after the socket is
  // gone, and its Link header is written from the socket's addresses.
  const gone = 20;
  for (let i = 0; i < gone; i++)
    await new Promise<void>((resolve, reject) => {
      const s = net.connect(Number(port), hostname, () => {
        s.end(
          `GET /api/actors?search=linked&perPage=2 HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${t.user}\r\n\r\n`,
        );
        s.destroy();
        resolve();
      });
      s.on('error', reject);
    });
  await until(() => requests().length >= before + gone, 'the access log lines of the requests whose client hung up');
  const logged = logEntries(daemon());
  expect(logged.filter((e) => e.msg === 'unhandled error')).toEqual([]);
  expect(requests().filter((e) => Number(e.status) >= 500)).toEqual([]);
});
