// What sockets that never finish their TLS handshake can make an HTTPS daemon hold: they count
// against the connection limits from their TCP accept, are closed once `timeouts.headersMs` has
// passed (a ClientHello sent a byte at a time included), leave nothing behind once closed, and do
// not hold up shutdown. The daemon runs in this process (its counters can be read); attackers are
// raw TCP sockets on 127.0.0.x. Every wait is for an event or a counter, with a deadline.
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/http/server.js';
import type { Sandbox } from '../helpers/cli.js';
import { makeCertificate, OPENSSL } from '../helpers/certificate.js';
import { inProcessDaemon, sandboxWithReader } from '../helpers/in-process.js';
import { eventually, until } from '../helpers/until.js';

const sockets: net.Socket[] = [];

function connect(port: number, localAddress: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port, localAddress }, () => resolve(s));
    s.on('error', reject);
    sockets.push(s);
  });
}

/** Resolves true when the server has closed `s`, false if it is still open after `ms`. */
function closedWithin(s: net.Socket, ms: number): Promise<boolean> {
  if (s.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    s.on('error', () => undefined);
    s.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** A real ClientHello, as node's TLS client sends it (captured by a plain TCP server). */
async function clientHello(): Promise<Buffer> {
  const capture = net.createServer();
  await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
  const port = (capture.address() as net.AddressInfo).port;
  const hello = new Promise<Buffer>((resolve) => capture.once('connection', (s) => s.once('data', resolve)));
  const client = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
  client.on('error', () => undefined);
  const bytes = await hello;
  client.destroy();
  await new Promise<void>((resolve) => capture.close(() => resolve()));
  capture.unref();
  return bytes;
}

/** The status of an authenticated HTTPS request from 127.0.0.1, on a connection of its own. */
function legitimateStatus(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get(
        `${url}/api/objects`,
        { rejectUnauthorized: false, agent: false, headers: { Authorization: `Bearer ${token}` } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      )
      .on('error', reject);
  });
}

/** The connections the daemon's server holds open (its file descriptors for clients). */
function serverConnections(daemon: Daemon): Promise<number> {
  return new Promise((resolve, reject) => daemon.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}

afterAll(() => {
  for (const s of sockets) s.destroy();
});

describe.skipIf(OPENSSL.skip !== null)('sockets in the TLS handshake', () => {
  let box: Sandbox;
  let token: string;
  let daemon: Daemon;
  let port: number;

  beforeAll(async () => {
    ({ box, token } = await sandboxWithReader());
    makeCertificate(box.dir);
    daemon = await inProcessDaemon(box, {
      tls: { cert: './cert.pem', key: './key.pem' },
      limits: { connections: 24, connectionsPerAddress: 6 },
      timeouts: { headersMs: 3000 },
    });
    port = Number(new URL(daemon.url).port);
  });
  afterAll(async () => {
    await daemon?.close();
    await box?.cleanup();
  });

  const settled = () => until(() => daemon.connections.open() === 0, 'every connection to be closed');

  it('count against connectionsPerAddress from their TCP accept, before any ClientHello', async () => {
    const refused = daemon.connections.refused;
    const held = [];
    for (let i = 0; i < 6; i++) held.push(await connect(port, '127.0.0.31'));
    await until(() => daemon.connections.open() === 6, 'the six silent sockets to be counted');
    const extra = [];
    for (let i = 0; i < 10; i++) extra.push(await connect(port, '127.0.0.31'));
    // The ten beyond the cap are closed by the server at once, and counted as refused.
    expect(await Promise.all(extra.map((s) => closedWithin(s, 2000)))).toEqual(extra.map(() => true));
    expect(daemon.connections.refused - refused).toBe(10);
    expect(daemon.connections.open()).toBe(6);
    // Another address, and a legitimate client, are served meanwhile.
    expect(await legitimateStatus(daemon.url, token)).toBe(200);
    for (const s of held) s.destroy();
    await settled();
  });

  it('count against the total limit: a flood of handshakes evicts its own, and HTTPS clients are served', async () => {
    const evicted = daemon.connections.evicted;
    const flood = [];
    for (let a = 32; a < 37; a++) for (let i = 0; i < 6; i++) flood.push(await connect(port, `127.0.0.${a}`));
    // 30 sockets against 24 places: the oldest were closed to admit the newest.
    await until(() => daemon.connections.evicted - evicted >= 6, 'six evictions');
    expect(daemon.connections.open()).toBeLessThanOrEqual(24);
    expect(await legitimateStatus(daemon.url, token)).toBe(200);
    for (const s of flood) s.destroy();
    await settled();
    expect(await legitimateStatus(daemon.url, token)).toBe(200);
  });

  it('closes a socket that sends nothing once timeouts.headersMs has passed, and holds nothing after', async () => {
    const timeouts = daemon.connections.handshakeTimeouts;
    const silent = await connect(port, '127.0.0.40');
    await until(() => daemon.connections.open() === 1, 'the silent socket to be counted');
    expect(await closedWithin(silent, 20_000)).toBe(true);
    expect(daemon.connections.handshakeTimeouts).toBeGreaterThan(timeouts);
    await settled();
    expect(daemon.connections.handshaking()).toBe(0);
    expect(await serverConnections(daemon)).toBe(0);
  });

  it('closes a socket that sends its ClientHello a byte at a time at the same deadline', async () => {
    const hello = await clientHello();
    const slow = await connect(port, '127.0.0.41');
    let sent = 0;
    // A byte every 100 ms: no idle timeout ever fires; only a fixed deadline ends it.
    const drip = setInterval(() => {
      if (sent < hello.length && !slow.destroyed) slow.write(hello.subarray(sent, ++sent));
    }, 100);
    try {
      expect(await closedWithin(slow, 20_000)).toBe(true);
    } finally {
      clearInterval(drip);
    }
    expect(sent).toBeLessThan(hello.length); // cut in the middle of its ClientHello
    await settled();
  });

  it('closes a socket whose handshake fails', async () => {
    const s = await connect(port, '127.0.0.42');
    s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await closedWithin(s, 10_000)).toBe(true);
    await settled();
  });
});

describe.skipIf(OPENSSL.skip !== null)('shutdown with sockets in the TLS handshake', () => {
  it('completes within timeouts.shutdownMs, closing them, though their handshake deadline is far off', async () => {
    const { box } = await sandboxWithReader();
    try {
      makeCertificate(box.dir);
      const daemon = await inProcessDaemon(box, {
        tls: { cert: './cert.pem', key: './key.pem' },
        timeouts: { headersMs: 600_000, shutdownMs: 500 },
      });
      const port = Number(new URL(daemon.url).port);
      const silent = [];
      for (let i = 0; i < 10; i++) silent.push(await connect(port, '127.0.0.50'));
      const hello = await clientHello();
      const partial = await connect(port, '127.0.0.51');
      partial.write(hello.subarray(0, hello.length >> 1)); // stalled in the middle of its ClientHello
      await eventually(async () => (await serverConnections(daemon)) === 11, 'the eleven sockets to be accepted');
      const stopped = daemon.close().then(() => 'stopped');
      const outcome = await Promise.race([
        stopped,
        new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 15_000).unref()),
      ]);
      expect(outcome).toBe('stopped');
      expect(await Promise.all([...silent, partial].map((s) => closedWithin(s, 5000)))).not.toContain(false);
    } finally {
      await box.cleanup();
    }
  });
});
