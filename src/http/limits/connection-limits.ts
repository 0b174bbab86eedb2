// Bounds on what connections cost before a request reaches Koa (README, "One client cannot hold the server"):
// per address (IPv6 by /64), in total (longest idle evicted first), pipeline depth, and the TLS handshake's time.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { clientKey } from '../client-address.js';

/** A counted connection, keyed by its TCP socket (over TLS, the one under the TLS socket). */
interface Tracked {
  /** The unit the per-address cap counts: an IPv4 address, or an IPv6 /64. */
  address: string;
  /** Requests received on this connection and not yet answered. */
  pending: number;
  /** The newest of them: the one whose body may still be arriving. */
  request: IncomingMessage | null;
  /** When its body last brought BODY_PROGRESS_BYTES, and the socket's bytesRead then. */
  progress: { at: number; bytes: number };
}

/** A body must bring BODY_PROGRESS_BYTES within BODY_STALL_MS, or its connection counts as idle. */
const BODY_PROGRESS_BYTES = 16 * 1024;
const BODY_STALL_MS = 1000;

const refusedBodies = new WeakSet<IncomingMessage>();

/** Marks a request refused whatever its body holds: at the cap, its connection counts as idle. */
export function markRefusedBody(req: IncomingMessage): void {
  refusedBodies.add(req);
}

const BUSY = JSON.stringify({ error: 'too many connections; retry later' });
const BUSY_ANSWER =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n' +
  `Content-Length: ${Buffer.byteLength(BUSY)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${BUSY}`;

export interface ConnectionGuard {
  /** Call first for every request; false when the request's connection was closed instead. */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
  /** Closes the connections still in their TLS handshake (on shutdown: none has a request). */
  closeHandshakes(): void;
  /** Closes every connection the server accepted and has not closed yet, whatever it is doing. */
  closeAll(): void;
  readonly stats: {
    refused: number;
    evicted: number;
    pipelineClosed: number;
    /** TLS connections closed for not finishing their handshake within `handshakeMs`. */
    handshakeTimeouts: number;
    open: () => number;
    /** Connections with a request in progress (its head parsed, its answer not yet sent). */
    busy: () => number;
    /** TLS connections still in their handshake. */
    handshaking: () => number;
  };
}

/** What identifies a TCP connection, the same on a TLS socket as on the TCP socket under it. */
const fourTuple = (s: Socket) => `${s.remoteAddress}|${s.remotePort}|${s.localAddress}|${s.localPort}`;

export function guardConnections(
  server: Server,
  limits: { total: number; perAddress: number; pipelined: number },
  options: {
    trusted: (address: string) => boolean;
    log: Logger;
    /** Over TLS: how long a connection may take to finish its handshake; null: plain HTTP. */
    handshakeMs: number | null;
  },
): ConnectionGuard {
  const secure = options.handshakeMs !== null;
  /** Every accepted TCP connection not yet closed, counted or refused: shutdown closes them all. */
  const accepted = new Set<Socket>();
  /** Counted connections, by their TCP socket. */
  const tracked = new Map<Socket, Tracked>();
  /** TLS: the connections in their handshake (by four-tuple, their deadline), and each TLS socket's TCP one. */
  const handshaking = new Map<string, { tcp: Socket; deadline: NodeJS.Timeout }>();
  const tcpOf = new WeakMap<Socket, Socket>();
  const busy = new Map<Socket, Tracked>();
  /** Per address, its connections with nothing in progress, longest idle first (re-inserted when they go idle). */
  const idle = new Map<string, Set<Socket>>();
  const perAddress = new Map<string, number>();
  const markIdle = (socket: Socket, address: string) => {
    let set = idle.get(address);
    if (!set) idle.set(address, (set = new Set()));
    set.delete(socket);
    set.add(socket);
  };
  const markBusy = (socket: Socket, address: string) => {
    const set = idle.get(address);
    if (!set) return;
    set.delete(socket);
    if (set.size === 0) idle.delete(address);
  };
  // Whether a busy connection waits only for a body its client sends slowly: incomplete, not held
  // back by the server (a body not yet read fills its buffer), and short of BODY_PROGRESS_BYTES.
  const bodyStalled = (socket: Socket, entry: Tracked, now: number): boolean => {
    const req = entry.request;
    const awaitingClient = req !== null && !req.complete && req.readableLength < req.readableHighWaterMark;
    if (awaitingClient && refusedBodies.has(req)) return true;
    // Bytes as the request's socket reads them (over TLS: decrypted).
    const bytesRead = (req?.socket ?? socket).bytesRead;
    if (awaitingClient && bytesRead - entry.progress.bytes < BODY_PROGRESS_BYTES)
      return now - entry.progress.at >= BODY_STALL_MS;
    entry.progress = { at: now, bytes: bytesRead };
    return false;
  };
  // The connection to close at the cap: of the address with the most open connections that has an
  // idle (or trickling) one, its longest-idle connection, a truly idle one before a trickling one.
  const evictionCandidate = (): Socket | undefined => {
    let best: Socket | undefined;
    let most = 0;
    for (const [address, set] of idle) {
      const open = perAddress.get(address) ?? 0;
      if (open > most) [best, most] = [set.values().next().value, open];
    }
    const now = performance.now();
    for (const [socket, entry] of busy) {
      const open = perAddress.get(entry.address) ?? 0;
      if (open > most && bodyStalled(socket, entry, now)) [best, most] = [socket, open];
    }
    return best;
  };
  const stats = {
    refused: 0,
    evicted: 0,
    pipelineClosed: 0,
    handshakeTimeouts: 0,
    open: () => tracked.size,
    busy: () => busy.size,
    handshaking: () => handshaking.size,
  };

  const refuse = (socket: Socket, address: string, why: string) => {
    stats.refused++;
    if (stats.refused === 1 || stats.refused % 1000 === 0)
      options.log.warn({ ip: address, refused_total: stats.refused, reason: why }, 'refused a connection');
    // Plain HTTP gets a short answer; a TLS handshake cannot be answered in plain text.
    if (secure) return void socket.destroy();
    socket.end(BUSY_ANSWER);
    socket.destroySoon();
  };

  const onConnection = (socket: Socket) => {
    accepted.add(socket);
    socket.once('close', () => accepted.delete(socket));
    const peer = socket.remoteAddress ?? '';
    const address = clientKey(peer);
    const mine = perAddress.get(address) ?? 0;
    if (mine >= limits.perAddress && !options.trusted(peer)) return refuse(socket, address, 'per-address limit');
    if (tracked.size >= limits.total) {
      const victim = evictionCandidate();
      // Never for an address holding more than the victim's: a flood whose own connections are
      // all busy is refused rather than make room at the cost of a client with fewer.
      const theirs = victim ? (perAddress.get(tracked.get(victim)?.address ?? '') ?? 0) : 0;
      if (!victim || theirs < mine) return refuse(socket, address, 'connection limit');
      stats.evicted++;
      release(victim); // counted out now: its 'close' comes later
      victim.destroy();
    }
    tracked.set(socket, { address, pending: 0, request: null, progress: { at: 0, bytes: 0 } });
    markIdle(socket, address);
    // Read again: the connection closed to make room may have been this address's own.
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    socket.once('close', () => release(socket));
    if (options.handshakeMs !== null) awaitHandshake(socket, options.handshakeMs);
  };
  const awaitHandshake = (socket: Socket, ms: number) => {
    const key = fourTuple(socket);
    const deadline = setTimeout(() => {
      stats.handshakeTimeouts++;
      if (stats.handshakeTimeouts === 1 || stats.handshakeTimeouts % 1000 === 0)
        options.log.warn(
          { ip: tracked.get(socket)?.address, handshake_timeouts_total: stats.handshakeTimeouts },
          'closed a connection that did not finish its TLS handshake in time',
        );
      socket.destroy();
    }, ms);
    deadline.unref();
    handshaking.set(key, { tcp: socket, deadline });
    socket.once('close', () => {
      clearTimeout(deadline);
      if (handshaking.get(key)?.tcp === socket) handshaking.delete(key);
    });
  };
  // The handshake is done: requests arrive on the TLS socket from now on.
  const onSecure = (tlsSocket: TLSSocket) => {
    const key = fourTuple(tlsSocket);
    const waiting = handshaking.get(key);
    handshaking.delete(key);
    if (waiting) clearTimeout(waiting.deadline);
    // A connection closed here (evicted, past its deadline) is not served, even if its TLS layer lags.
    if (!waiting || !tracked.has(waiting.tcp)) return void tlsSocket.destroy();
    tcpOf.set(tlsSocket, waiting.tcp);
  };
  /** Forgets a connection (once, whether it was closed by its client or evicted). */
  const release = (socket: Socket) => {
    const entry = tracked.get(socket);
    if (!entry) return;
    tracked.delete(socket);
    busy.delete(socket);
    markBusy(socket, entry.address);
    const left = (perAddress.get(entry.address) ?? 1) - 1;
    if (left > 0) perAddress.set(entry.address, left);
    else perAddress.delete(entry.address);
  };
  // Counted from the TCP accept, for HTTPS too (its TLS server has made its TLS socket by then).
  server.on('connection', onConnection);
  if (secure) server.on('secureConnection', onSecure);

  return {
    stats,
    closeHandshakes: () => {
      for (const { tcp } of [...handshaking.values()]) tcp.destroy();
    },
    closeAll: () => {
      for (const socket of [...accepted]) socket.destroy();
    },
    admit(req, res) {
      // Requests Node parsed from a connection already closed here are dropped silently.
      if (req.socket.destroyed) return false;
      const socket = tcpOf.get(req.socket) ?? req.socket;
      const entry = tracked.get(socket);
      if (!entry) return true;
      if (entry.pending >= limits.pipelined) {
        stats.pipelineClosed++;
        options.log.warn(
          { ip: entry.address, waiting: entry.pending },
          'closed a connection that pipelined too many requests',
        );
        socket.destroy();
        return false;
      }
      entry.pending++;
      entry.request = req;
      entry.progress = { at: performance.now(), bytes: socket.bytesRead };
      markBusy(socket, entry.address);
      busy.set(socket, entry);
      res.once('close', () => {
        entry.pending--;
        if (entry.pending > 0) return;
        entry.request = null;
        busy.delete(socket);
        if (!socket.destroyed) markIdle(socket, entry.address);
      });
      return true;
    },
  };
}
