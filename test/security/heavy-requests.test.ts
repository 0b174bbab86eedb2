// Heavy requests have a bounded cost (review round 3, finding 4): TEI exports (also with `ids`,
// and /api/tei/refresh), BEACON dumps and large reconciliation batches take one of
// `limits.heavyRequests` places (or wait in one of `limits.heavyQueue`); beyond them the answer
// is 503 with Retry-After, while cheap requests are answered as ever. Exports and dumps are
// built once per change into files under dataDir and sent from there; `ids` checks the ids and
// rebuilds only what is stale; a build yields to the event loop between slices of rows, so
// /healthz is answered while it runs. The daemon runs in this process; clients talk HTTP.
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/http/server.js';
import { createToken, withSandboxDb, type Sandbox } from '../helpers/cli.js';
import { closeWatched, loadLongActors, openDaemonWatched, sandboxWithReader } from '../helpers/in-process.js';
import { until } from '../helpers/until.js';

const ACTORS = 10_000;

let box: Sandbox;
let daemon: Daemon;
let token: string;
let editor: string;
const serverSockets: net.Socket[] = [];
const clients: net.Socket[] = [];
const exportsDir = () => path.join(box.dir, 'data', 'exports');

beforeAll(async () => {
  ({ box, token } = await sandboxWithReader({ ed: 'editor' }));
  editor = (await createToken(box, 'ed', 'writes', 'root')).token;
  // Each with a GND id, for the BEACON dump.
  await loadLongActors(box, ACTORS, (i) => ({ gnd: `1${String(10_000_000 + i)}X` }));
  // One place, none waiting: a request that holds it makes every other heavy one a 503.
  const patch = { limits: { heavyRequests: 1, heavyQueue: 0 }, timeouts: { sendMs: 60_000 } };
  daemon = await openDaemonWatched(box, patch, serverSockets);
}, 120_000);

afterAll(() => closeWatched(clients, daemon, box));

interface Answer {
  status: number;
  retryAfter: string | null;
  text: string;
}

async function get(url: string, auth: string | null = token, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(new URL(url, daemon.url), {
    ...init,
    headers: { ...(auth ? { Authorization: `Bearer ${auth}` } : {}), ...(init.headers as Record<string, string>) },
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() };
}

/** A batch of `n` reconciliation queries, as OpenRefine POSTs it (a form). */
const batch = (n: number) =>
  new URLSearchParams({
    queries: JSON.stringify(
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { query: `Actor ${i}` }])),
    ),
  });

/** A POST of a JSON body to the 1.0-draft service of actors (`/match` or `/extend`). */
const draft = (service: 'match' | 'extend', body: unknown) => () =>
  get(`/api/actors/reconcile/1.0-draft/${service}`, null, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
const draftQueries = (n: number) => ({
  queries: Array.from({ length: n }, (_, i) => ({ conditions: [{ matchType: 'name', propertyValue: `Actor ${i}` }] })),
});
const draftExtend = (n: number) => ({
  ids: Array.from({ length: n }, (_, i) => String(i + 1)),
  properties: [{ id: 'gnd' }],
});

/** Holds the one heavy place: a GET of the export whose client reads nothing after its status line. */
async function holdPlace(): Promise<net.Socket> {
  const socket = net.connect({ host: '127.0.0.1', port: Number(new URL(daemon.url).port) });
  clients.push(socket);
  socket.on('error', () => undefined);
  await new Promise<void>((done) => socket.once('connect', () => done()));
  const local = socket.localPort;
  socket.write('GET /api/tei/actors HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise<void>((done) => socket.once('readable', () => done()));
  expect((socket.read(12) as Buffer).toString('latin1')).toBe('HTTP/1.1 200');
  await until(
    () => serverSockets.find((s) => s.remotePort === local)?.writableNeedDrain === true,
    'the held answer to stall',
  );
  return socket;
}

describe('while the one heavy place is taken', () => {
  it('refuses every other heavy request with 503 and Retry-After, and answers cheap ones', async () => {
    const holder = await holdPlace();
    const heavy: [string, () => Promise<Answer>][] = [
      ['export', () => get('/api/tei/actors', null)],
      ['export with ids', () => get('/api/tei/actors?ids=1')],
      ['refresh', () => get('/api/tei/refresh')],
      ['BEACON, no token', () => get('/api/actors?format=beacon', null)],
      ['BEACON of places', () => get('/api/places?format=beacon')],
      ['50 reconciliation queries', () => get('/api/actors/reconcile', null, { method: 'POST', body: batch(50) })],
      ['50 queries to the 1.0-draft match', draft('match', draftQueries(50))],
      ['50 ids to the 1.0-draft extend', draft('extend', draftExtend(50))],
    ];
    for (const [what, send] of heavy) {
      const r = await send();
      expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBe(503);
      expect(Number(r.retryAfter), what).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(r.text)).toEqual({ error: expect.stringMatching(/retry later/) as unknown });
    }
    const cheap: [string, () => Promise<Answer>][] = [
      ['/healthz', () => get('/healthz', null)],
      ['a list', () => get('/api/actors?perPage=5')],
      ['5 reconciliation queries', () => get('/api/actors/reconcile', null, { method: 'POST', body: batch(5) })],
      ['5 queries to the 1.0-draft match', draft('match', draftQueries(5))],
      ['5 ids to the 1.0-draft extend', draft('extend', draftExtend(5))],
      ['one actor', () => get('/api/actors/1')],
    ];
    for (const [what, send] of cheap) expect((await send()).status, what).toBe(200);

    // Once the place is free, they are served.
    holder.destroy();
    expect((await served('/api/tei/actors?ids=1')).status).toBe(200);
  });
});

/**
 * A GET that comes back as a 503 tells it to: the one place is given back only once its
 * answer's last bytes are out, which a client in this process can see a moment before.
 */
async function served(url: string, auth: string | null = token): Promise<Answer> {
  let r = await get(url, auth);
  for (let i = 0; i < 5 && r.status === 503; i++) {
    await new Promise((done) => setTimeout(done, 1000 * Number(r.retryAfter)));
    r = await get(url, auth);
  }
  return r;
}

describe('exports and dumps', () => {
  const files = async () =>
    Object.fromEntries(
      await Promise.all(
        (await readdir(exportsDir())).map(async (f) => [f, (await stat(path.join(exportsDir(), f))).mtimeMs] as const),
      ),
    );

  it('are built once per change and sent from files: a second request, or ids, rebuilds nothing', async () => {
    const first = await served('/api/actors?format=beacon');
    expect(first.status).toBe(200);
    expect((await served('/api/tei/actors')).status).toBe(200);
    const built = await files();
    const revision = await withSandboxDb(box, (db) =>
      db('tei_exports').where('kind', 'actors').first<{ revision: number }>('revision'),
    );
    const second = await served('/api/actors?format=beacon');
    expect(second.text).toBe(first.text);
    expect((await served('/api/tei/actors?ids=1,2,3')).status).toBe(200);
    expect((await served('/api/tei/actors')).status).toBe(200);
    expect(await files()).toEqual(built);
    expect(
      await withSandboxDb(box, (db) =>
        db('tei_exports').where('kind', 'actors').first<{ revision: number }>('revision'),
      ),
    ).toEqual(revision);
    // A change makes new ones.
    const changed = await fetch(new URL('/api/actors/1', daemon.url), {
      method: 'PUT',
      headers: { Authorization: `Bearer ${editor}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Changed, Heavy' }),
    });
    expect(changed.status).toBe(200);
    expect((await served('/api/actors?format=beacon')).text).toContain('Changed, Heavy');
    expect((await served('/api/tei/actors')).text).toContain('Changed, Heavy');
    expect(await files()).not.toEqual(built);
  });

  it('are built in slices: /healthz is answered while the export of 10,000 actors is being built', async () => {
    await mkdir(exportsDir(), { recursive: true });
    // A change, so the next GET builds the export anew.
    await withSandboxDb(box, (db) => db('actors').where('id', 2).update({ comment: 'changed by hand' }));
    let watcher: FSWatcher | undefined;
    const buildStarted = new Promise<void>((done) => {
      watcher = watch(exportsDir(), (_event, name) => {
        if (name && String(name).startsWith('.build-')) done();
      });
    });
    const order: string[] = [];
    try {
      const exported = served('/api/tei/actors').then((r) => {
        order.push('export');
        return r;
      });
      await Promise.race([buildStarted, exported]);
      expect(order, 'the export was answered before a build was seen').toEqual([]);
      const health = get('/healthz', null).then((r) => {
        order.push('healthz');
        return r;
      });
      expect((await health).status).toBe(200);
      expect((await exported).text).toContain('changed by hand');
      expect(order).toEqual(['healthz', 'export']);
    } finally {
      watcher?.close();
    }
  });
});
