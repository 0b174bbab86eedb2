// Readers of the TEI export that read nothing cannot hold the daemon (review round 3, finding 1).
// With `public_access` on, no token is needed for GET /api/tei/actors (here about 11 MB). Clients
// that send it and read nothing:
// - beyond `limits.heavyRequests` running and `limits.heavyQueue` waiting, get 503 with
//   Retry-After at once;
// - are sent the export from a file with backpressure: what the daemon holds for each of them
//   stays bounded, whatever the size of the export;
// - are cut once their answer has not moved for `timeouts.sendMs`;
// while /healthz and a token holder's list are answered all along. The daemon runs in this
// process, so its sockets can be looked at; clients send raw TCP from 127.0.0.2.
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorsDocument, type ActorRow } from '../../src/domain/catalog/tei/document.js';
import type { Daemon } from '../../src/http/server.js';
import { withSandboxDb, type Sandbox } from '../helpers/cli.js';
import { closeWatched, loadLongActors, openDaemonWatched, sandboxWithReader } from '../helpers/in-process.js';
import { until } from '../helpers/until.js';

const ACTORS = 10_000;
const READERS = 12;
const RUNNING = 2;
const WAITING = 2;

let box: Sandbox;
let daemon: Daemon;
let token: string;
/** The daemon's side of every connection, as it accepted them. */
const serverSockets: net.Socket[] = [];
const clients: net.Socket[] = [];

beforeAll(async () => {
  ({ box, token } = await sandboxWithReader());
  await loadLongActors(box, ACTORS);
  daemon = await openDaemonWatched(
    box,
    { limits: { heavyRequests: RUNNING, heavyQueue: WAITING }, timeouts: { sendMs: 1000 } },
    serverSockets,
  );
}, 120_000);

afterAll(() => closeWatched(clients, daemon, box));

interface Reader {
  socket: net.Socket;
  /** The status line's code, read once; then nothing more is read. */
  status: Promise<number>;
  /** The daemon's socket of this connection. */
  server: () => net.Socket | undefined;
}

/** A client that sends GET /api/tei/actors, reads the status line, and then reads nothing. */
function nonReader(): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      host: '127.0.0.1',
      port: Number(new URL(daemon.url).port),
      localAddress: '127.0.0.2',
    });
    clients.push(socket);
    socket.on('error', () => undefined);
    const status = new Promise<number>((done) => {
      socket.once('readable', () => {
        const head = socket.read(12) as Buffer | null;
        done(Number(/^HTTP\/1\.1 (\d{3})/.exec(head?.toString('latin1') ?? '')?.[1] ?? 0));
      });
      socket.once('close', () => done(0));
    });
    socket.once('connect', () => {
      const local = socket.localPort;
      socket.write('GET /api/tei/actors HTTP/1.1\r\nHost: x\r\n\r\n');
      resolve({ socket, status, server: () => serverSockets.find((s) => s.remotePort === local) });
    });
    socket.once('error', reject);
  });
}

async function ok(path: string, withToken: boolean): Promise<number> {
  const res = await fetch(new URL(path, daemon.url), {
    headers: withToken ? { Authorization: `Bearer ${token}` } : {},
  });
  await res.arrayBuffer();
  return res.status;
}

describe('clients that request the TEI export and read nothing', () => {
  it('get 503 beyond the running and waiting places, hold little each, and are cut', async () => {
    const readers: Reader[] = [];
    for (let i = 0; i < READERS; i++) readers.push(await nonReader());
    const statuses = await Promise.all(readers.map((r) => r.status));
    // Those without a place were refused at once; the others got the export's head.
    const refused = statuses.filter((s) => s === 503).length;
    expect(refused).toBeGreaterThanOrEqual(READERS - RUNNING - WAITING);
    expect(statuses.filter((s) => s !== 503 && s !== 200)).toEqual([]);

    // The ones being sent the export stall (their client reads nothing); the daemon holds
    // at most a buffer's worth for each, not the export.
    const sending = readers.filter((_, i) => statuses[i] === 200);
    expect(sending.length).toBeGreaterThanOrEqual(1);
    await until(
      () => sending.some((r) => r.server()?.writableNeedDrain === true),
      'an answer to stall on a client that reads nothing',
    );
    for (const r of sending) {
      const held = r.server()?.writableLength ?? 0;
      expect(held, 'bytes the daemon holds for one client').toBeLessThan(1024 * 1024);
    }
    // Meanwhile the daemon serves.
    expect(await ok('/healthz', false)).toBe(200);
    expect(await ok('/api/actors?perPage=5', true)).toBe(200);

    // Every answer that stopped moving is cut by the daemon (timeouts.sendMs), the waiting
    // ones' too. (Their clients, reading nothing, never get as far as the end.)
    await Promise.all(
      sending.map((r) => {
        const server = r.server();
        return server && !server.destroyed
          ? new Promise<void>((done) => server.once('close', () => done()))
          : Promise.resolve();
      }),
    );
    expect(await ok('/healthz', false)).toBe(200);
  });

  it('leave the export whole for a client that reads it, served from a file under dataDir', async () => {
    const res = await fetch(new URL('/api/tei/actors', daemon.url));
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(text.match(/<person /g)).toHaveLength(ACTORS);
    expect(text.trimEnd().endsWith('</TEI>')).toBe(true);
    // Written in pieces, it is byte for byte the document of the rows written in one go.
    const rows = await withSandboxDb(box, (db) => db('actors').select('*').orderBy('id'));
    const last = (rows as { updated_at: string }[]).reduce<string | null>(
      (max, r) => (max === null || r.updated_at > max ? r.updated_at : max),
      null,
    );
    expect(text).toBe(actorsDocument(rows as ActorRow[], last));
    // Kept as a file, not as a value in the database that each request would read whole.
    const dir = path.join(box.dir, 'data', 'exports');
    expect(existsSync(dir) && readdirSync(dir).some((f) => f.startsWith('actors-'))).toBe(true);
    const stored = await withSandboxDb(box, (db) =>
      db('tei_exports').where('kind', 'actors').first<{ document: string }>('document'),
    );
    expect(stored.document).toBe('');
  });
});
