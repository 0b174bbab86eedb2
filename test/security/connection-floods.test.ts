// What one client can make the daemon hold: pipelined requests on one connection, connections
// per address and in total, silent connections. The daemon runs in this process (its counters
// and its server can be read) on a sandbox; clients talk raw TCP on 127.0.0.x. Bounded: every
// wait is for an event or a counter, with a deadline, and every socket is destroyed at the end.
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/http/server.js';
import type { Sandbox } from '../helpers/cli.js';
import { inProcessDaemon, sandboxWithReader } from '../helpers/in-process.js';
import { until } from '../helpers/until.js';

let box: Sandbox;
let daemon: Daemon;
let token: string;
const sockets: net.Socket[] = [];

beforeAll(async () => {
  ({ box, token } = await sandboxWithReader());
  daemon = await inProcessDaemon(box, {
    limits: { connections: 48, connectionsPerAddress: 20, pipelinedRequests: 8 },
    timeouts: { headersMs: 1000, keepAliveMs: 5000 },
  });
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await daemon?.close();
  await box?.cleanup();
});

const port = () => Number(new URL(daemon.url).port);

function connect(localAddress = '127.0.0.1'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port: port(), localAddress }, () => resolve(s));
    s.on('error', reject);
    sockets.push(s);
  });
}

/** Everything the server sends until it closes the socket (or `ms` passes: then null). */
function readUntilClosed(s: net.Socket, ms = 10_000): Promise<string | null> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve(null), ms);
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

const request = (auth?: string) =>
  `GET /api/objects HTTP/1.1\r\nHost: x\r\n${auth ? `Authorization: Bearer ${auth}\r\n` : ''}\r\n`;

async function legitimateStatus(localAddress = '127.0.0.1'): Promise<number> {
  const s = await connect(localAddress);
  const done = readUntilClosed(s);
  s.write(`GET /api/objects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
  const text = await done;
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text ?? '')?.[1] ?? 0);
}

describe('pipelining', () => {
  it('answers a pipeline within the limit in order', async () => {
    const s = await connect();
    const done = readUntilClosed(s);
    s.write(
      request(token).repeat(7) +
        `GET /api/objects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
    const text = await done;
    expect(text?.match(/HTTP\/1\.1 200 /g)?.length).toBe(8);
  });

  it('closes a connection that pipelines 50,000 requests, having run only a bounded number of them', async () => {
    const before = { pipelineClosed: daemon.connections.pipelineClosed };
    // The requests of that connection that reach the app: its socket still open when Node
    // hands them over (the connection limits drop the rest unanswered).
    let ran = 0;
    const count = (req: IncomingMessage) => {
      if (!req.socket.destroyed && req.socket.remoteAddress === '127.0.0.2') ran++;
    };
    daemon.server.prependListener('request', count);
    const s = await connect('127.0.0.2');
    const closed = readUntilClosed(s, 20_000);
    const forged = `arc_${'A'.repeat(8)}${'b'.repeat(40)}000000`;
    const chunk = (request() + request(forged)).repeat(500);
    let sent = 0;
    const pump = () => {
      while (sent < 50_000 && !s.destroyed) {
        sent += 1000;
        if (!s.write(chunk)) return void s.once('drain', pump);
      }
    };
    pump();
    expect(await closed).not.toBeNull(); // closed by the server, not left hanging
    daemon.server.off('request', count);
    expect(daemon.connections.pipelineClosed).toBeGreaterThan(before.pipelineClosed);
    // At most the requests of the chunks read before the close ran (a chunk holds a few hundred).
    expect(ran).toBeGreaterThan(0);
    expect(ran).toBeLessThan(2_000);
    // The legitimate client is served at once.
    expect(await legitimateStatus()).toBe(200);
  });
});

describe('connections', () => {
  it('refuses connections beyond the per-address limit with 503, and serves other addresses', async () => {
    const held = await Promise.all(Array.from({ length: 20 }, () => connect('127.0.0.3')));
    // Each holds a request in progress (an unfinished request head), so none is idle.
    for (const s of held) s.write('GET /api/objects HTTP/1.1\r\n');
    const extra = await connect('127.0.0.3');
    const answer = await readUntilClosed(extra);
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/Retry-After: 1/i);
    expect(await legitimateStatus('127.0.0.4')).toBe(200);
    for (const s of held) s.destroy();
  });

  it('makes room at the total limit by closing the connection idle longest', async () => {
    const before = daemon.connections.evicted;
    const idle: net.Socket[] = [];
    for (let a = 10; a < 13; a++) for (let i = 0; i < 18; i++) idle.push(await connect(`127.0.0.${a}`));
    // 54 idle connections against a limit of 48: the oldest were closed to admit the newest.
    await until(() => daemon.connections.evicted - before >= 6, 'six evictions');
    expect(daemon.connections.open()).toBeLessThanOrEqual(48);
    expect(await legitimateStatus('127.0.0.14')).toBe(200);
    for (const s of idle) s.destroy();
  });

  it("evicts the flooding address's idle connections before a quiet client's keep-alive connection", async () => {
    const quiet = await connect('127.0.0.15');
    let text = '';
    quiet.on('data', (d: Buffer) => (text += d.toString('latin1')));
    quiet.write(request(token));
    // Answered, and idle on the daemon's side: now the oldest idle connection.
    await until(() => text.includes('HTTP/1.1 200') && daemon.connections.busy() === 0, 'the answer');
    const evicted = daemon.connections.evicted;
    const flood: net.Socket[] = [];
    for (let i = 0; i < 19; i++) flood.push(await connect('127.0.0.16'));
    for (let i = 0; i < 19; i++) flood.push(await connect('127.0.0.17'));
    for (let i = 0; i < 19; i++) flood.push(await connect('127.0.0.18'));
    // 58 connections against 48 places: ten evictions, none of them the quiet client's.
    await until(() => daemon.connections.evicted - evicted >= 10, 'ten evictions');
    expect(quiet.destroyed).toBe(false);
    quiet.write(`GET /api/objects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    await new Promise<void>((done) => quiet.on('close', () => done()));
    expect(text.match(/HTTP\/1\.1 200 /g)?.length).toBe(2);
    for (const s of flood) s.destroy();
  });

  it('closes a connection that never sends a request head', async () => {
    const s = await connect('127.0.0.20');
    const text = await readUntilClosed(s, 10_000);
    expect(text).not.toBeNull();
  });

  it('closes the connection after answering a refused token', async () => {
    const s = await connect('127.0.0.21');
    const done = readUntilClosed(s);
    s.write(request(`arc_${'A'.repeat(8)}${'b'.repeat(40)}000000`) + request(token));
    const text = await done;
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text).toMatch(/Connection: close/i);
    expect(text?.match(/HTTP\/1\.1 /g)?.length).toBe(1); // the pipelined second request was dropped
  });
});
