// Slow request bodies cannot take the daemon's connections (review round 3, finding 2). Clients
// send a complete request head and then trickle its body:
// - a request already known to be refused (its path, its token, its rule) gets no more time for
//   its body than for its head (`timeouts.headersMs`): then it is answered, and closed, unread;
// - a connection whose body trickles (less than 16 KiB in a second) counts as idle: at the
//   connection cap it is closed to admit a new client, as an idle keep-alive connection is;
// - the per-address cap counts an IPv6 /64 as one address (guardConnections, with connections
//   from made-up addresses: this machine's loopback has one IPv6 address only).
// The daemons run in this process (their counters can be read); clients send raw TCP from
// 127.0.0.x. Every socket is destroyed at the end.
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import net from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { guardConnections } from '../../src/http/limits/connection-limits.js';
import type { Daemon } from '../../src/http/server.js';
import type { Sandbox } from '../helpers/cli.js';
import type { Json } from '../helpers/config.js';
import { inProcessDaemon, sandboxWithReader } from '../helpers/in-process.js';
import { holdConnection, parseResponse, type HeldSocket } from '../helpers/raw-http.js';
import { until } from '../helpers/until.js';

let box: Sandbox;
let token: string;
const daemons: Daemon[] = [];
const sockets: net.Socket[] = [];
const timers: NodeJS.Timeout[] = [];

beforeAll(async () => {
  ({ box, token } = await sandboxWithReader());
});

afterEach(() => {
  for (const t of timers.splice(0)) clearInterval(t);
  for (const s of sockets.splice(0)) s.destroy();
});

afterAll(async () => {
  await Promise.all(daemons.map((d) => d.close()));
  await box?.cleanup();
});

async function daemonWith(patch: Json): Promise<Daemon> {
  const d = await inProcessDaemon(box, patch);
  daemons.push(d);
  return d;
}

function connect(d: Daemon, localAddress: string): Promise<HeldSocket> {
  return holdConnection(d.url, localAddress).then((held) => {
    sockets.push(held.socket);
    return held;
  });
}

const BODY_LENGTH = 1000;

/**
 * A complete head of a JSON POST to `path` announcing `length` bytes (with `auth` as its bearer
 * token, if given), then its body `chunk` bytes every `everyMs` (the client's pace) while the
 * connection is open.
 */
function sendBody(
  held: HeldSocket,
  path: string,
  pace: { everyMs: number; length?: number; chunk?: number; auth?: string },
): { sent: () => number } {
  const { everyMs, length = BODY_LENGTH, chunk = 1, auth } = pace;
  held.socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n` +
      `${auth ? `Authorization: Bearer ${auth}\r\n` : ''}\r\n`,
  );
  let sent = 0;
  const timer = setInterval(() => {
    if (held.isClosed() || sent + chunk > length) return clearInterval(timer);
    held.socket.write(sent === 0 ? `[${' '.repeat(chunk - 1)}` : ' '.repeat(chunk));
    sent += chunk;
  }, everyMs);
  timers.push(timer);
  return { sent: () => sent };
}

/** One GET /api/objects with the reader's token on a connection of its own: the status (0: closed unanswered). */
async function legitimate(d: Daemon, localAddress = '127.0.0.1'): Promise<{ status: number; retryAfter: number }> {
  const held = await connect(d, localAddress);
  held.socket.write(
    `GET /api/objects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
  );
  await held.closed;
  const res = parseResponse(held.received(), { atEnd: true });
  return { status: res?.status ?? 0, retryAfter: Number(res?.headers['retry-after'] ?? 0) };
}

describe('a refused request trickling its body', () => {
  it('is answered, and closed, once the time for a request head has passed, its body unread', async () => {
    const d = await daemonWith({ timeouts: { headersMs: 1000, requestMs: 120_000 } });
    const cases: [string, string | undefined, number][] = [
      ['/api/nonexistent', undefined, 404],
      ['/api/actors', undefined, 401], // no token where one is needed
      ['/api/actors', token, 403], // a reader's token on an editor's route
      ['/api/actors', `arc_${'A'.repeat(8)}${'b'.repeat(40)}000000`, 401], // a forged token
    ];
    // All at once, each from an address of its own: every one waits out the same deadline.
    await Promise.all(
      cases.map(async ([path, auth, status], i) => {
        const held = await connect(d, `127.0.0.${20 + i}`);
        const body = sendBody(held, path, { everyMs: 100, auth });
        await held.closed; // by the daemon: the client is still sending
        const res = parseResponse(held.received(), { atEnd: true });
        expect(res?.status, `${path} ${auth ?? 'without a token'}`).toBe(status);
        expect(res?.headers.connection).toBe('close');
        expect(body.sent(), 'bytes of the body sent before the close').toBeLessThan(BODY_LENGTH);
      }),
    );
  });

  it('with its whole body at once: the body is read, and api_token in it still wins', async () => {
    const d = await daemonWith({ timeouts: { headersMs: 1000, requestMs: 120_000 } });
    const held = await connect(d, '127.0.0.2');
    const body = JSON.stringify({ api_token: 'x' });
    held.socket.write(
      `POST /api/nonexistent HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    await held.closed;
    const res = parseResponse(held.received(), { atEnd: true });
    expect(res?.status).toBe(401);
    expect(res?.text).toMatch(/api_token parameter is no longer accepted/);
  });
});

/** One GET /api/objects with the reader's token, retried as a 503 says (Retry-After) up to `retries` times. */
async function legitimateRetried(d: Daemon, retries: number): Promise<number> {
  let answer = await legitimate(d);
  for (let i = 0; i < retries && answer.status === 503; i++) {
    await new Promise((done) => setTimeout(done, 1000 * Math.max(1, answer.retryAfter)));
    answer = await legitimate(d);
  }
  return answer.status;
}

/** 20 KiB every half second of a 900,000-byte body: never a stall (16 KiB a second is progress). */
const STREAMING = { everyMs: 500, length: 900_000, chunk: 20_480 };
/** 32 places, 8 per address; refused bodies get a minute, so only eviction can make room. */
const CAPPED = {
  limits: { connections: 32, connectionsPerAddress: 8 },
  timeouts: { headersMs: 60_000, requestMs: 120_000 },
};

describe('connections whose bodies trickle', () => {
  it('count as idle at the connection cap: a client with a token is served, not refused', async () => {
    // The trickling requests are allowed (a reader's reconciliation query), so their bodies are
    // awaited: only the eviction can make room.
    const d = await daemonWith(CAPPED);
    const attackers: HeldSocket[] = [];
    for (let a = 2; a < 6; a++) {
      for (let i = 0; i < 8; i++) {
        const held = await connect(d, `127.0.0.${a}`);
        sendBody(held, '/api/actors/reconcile', { everyMs: 200, auth: token });
        attackers.push(held);
      }
    }
    await until(() => d.connections.busy() === 32, 'the 32 trickling requests to be read');
    const evictedBefore = d.connections.evicted;
    // Retried as a 503 says (Retry-After), a few times at most: a trickle counts as idle once
    // it has sent less than 16 KiB for a second.
    expect(await legitimateRetried(d, 4)).toBe(200);
    expect(d.connections.evicted).toBeGreaterThan(evictedBefore);
    expect(attackers.filter((h) => h.isClosed()).length).toBeGreaterThanOrEqual(1);
  });

  it('of requests refused anyway count as idle from the start, however fast their bodies come', async () => {
    // 20 KiB every half second never stalls (16 KiB a second is progress): only a body known to
    // be refused (an unknown path) makes its connection one to close for a newcomer.
    const d = await daemonWith(CAPPED);
    for (let a = 2; a < 6; a++) {
      for (let i = 0; i < 8; i++) {
        sendBody(await connect(d, `127.0.0.${a}`), '/api/nonexistent', STREAMING);
      }
    }
    await until(() => d.connections.busy() === 32, 'the 32 streaming requests to be read');
    const evictedBefore = d.connections.evicted;
    expect(await legitimateRetried(d, 2)).toBe(200);
    expect(d.connections.evicted).toBeGreaterThan(evictedBefore);
  });

  it('of allowed requests whose bodies progress keep their place: the newcomer is refused', async () => {
    const d = await daemonWith(CAPPED);
    for (let a = 2; a < 6; a++) {
      for (let i = 0; i < 8; i++) {
        sendBody(await connect(d, `127.0.0.${a}`), '/api/actors/reconcile', { ...STREAMING, auth: token });
      }
    }
    await until(() => d.connections.busy() === 32, 'the 32 streaming requests to be read');
    const answer = await legitimate(d);
    expect(answer.status).toBe(503);
    expect(d.connections.refused).toBeGreaterThan(0);
  });
});

describe('the per-address cap', () => {
  /** A connection as the guard sees it: a socket from `remoteAddress` that can be closed. */
  class FakeSocket extends EventEmitter {
    destroyed = false;
    bytesRead = 0;
    writableNeedDrain = false;
    bytesWritten = 0;
    answered = '';
    constructor(readonly remoteAddress: string) {
      super();
    }
    end(text?: string) {
      this.answered += text ?? '';
      this.destroy();
    }
    destroy() {
      if (this.destroyed) return;
      this.destroyed = true;
      this.emit('close');
    }
    destroySoon() {
      this.destroy();
    }
  }

  function guarded(perAddress: number, total = 1000) {
    const server = new EventEmitter() as unknown as Server;
    guardConnections(
      server,
      { total, perAddress, pipelined: 16 },
      { trusted: () => false, log: pino({ level: 'silent' }), handshakeMs: null },
    );
    return (address: string) => {
      const s = new FakeSocket(address);
      server.emit('connection', s);
      return s;
    };
  }

  it('counts the addresses of one IPv6 /64 together, and other /64s apart', () => {
    const open = guarded(4);
    const same = Array.from({ length: 5 }, (_, i) => open(`2001:db8:1:2::${(i + 1).toString(16)}`));
    expect(same.filter((s) => !s.destroyed)).toHaveLength(4);
    expect(same[4]?.answered).toMatch(/^HTTP\/1\.1 503 /);
    // Another /64, and an IPv4 client, are counted on their own.
    expect(open('2001:db8:1:3::1').destroyed).toBe(false);
    expect(open('::ffff:192.0.2.7').destroyed).toBe(false);
    expect(open('192.0.2.8').destroyed).toBe(false);
  });

  it("keeps an address's count when its new connection takes the place of its own idle one", () => {
    const open = guarded(3, 2);
    const first = [open('192.0.2.9'), open('192.0.2.9')];
    // At the cap of two, each newcomer closes the longest idle connection, its own.
    const later = Array.from({ length: 10 }, () => open('192.0.2.9'));
    expect(later.map((s) => s.destroyed)).toEqual([...Array<boolean>(8).fill(true), false, false]);
    expect(first.every((s) => s.destroyed)).toBe(true);
    expect(later.some((s) => s.answered !== '')).toBe(false); // none refused: evicted only
  });

  it('counts IPv4 addresses one by one, also when written as IPv4-mapped IPv6', () => {
    const open = guarded(2);
    expect([open('::ffff:192.0.2.1'), open('192.0.2.1'), open('192.0.2.1')].map((s) => s.destroyed)).toEqual([
      false,
      false,
      true,
    ]);
    expect(open('192.0.2.2').destroyed).toBe(false);
  });
});
