// Bounds on what connections can cost, before any request reaches Koa:
// - at most `perAddress` open connections per peer address (trusted proxies excepted: they
//   carry many clients), beyond which a new one is answered 503 and closed at once;
// - at most `total` open connections; at the cap, an idle connection of the address holding the
//   most connections is closed to make room (its longest idle one; an idle keep-alive
//   connection costs its client nothing to reopen), so a flood of connections from a few
//   addresses evicts its own before a client's with few; only when none is idle is the
//   newcomer refused;
// - at most `pipelined` requests waiting for their answers on one connection. HTTP/1.1 answers
//   in order, and Node parses every request a client has sent, so a connection that pipelines
//   deeper than that is closed at once: its requests stop costing memory and CPU, and the
//   requests it already had in flight finish unanswered.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

interface ConnectionLimits {
  total: number;
  perAddress: number;
  pipelined: number;
}

interface Tracked {
  address: string;
  /** Requests received on this connection and not yet answered. */
  pending: number;
}

const BUSY = JSON.stringify({ error: 'too many connections; retry later' });
const BUSY_ANSWER =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n' +
  `Content-Length: ${Buffer.byteLength(BUSY)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${BUSY}`;

export interface ConnectionGuard {
  /** Call first for every request; false when the request's connection was closed instead. */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
  readonly stats: { refused: number; evicted: number; pipelineClosed: number; open: () => number };
}

export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
  options: { trusted: (address: string) => boolean; log: Logger; secure: boolean },
): ConnectionGuard {
  const tracked = new Map<Socket, Tracked>();
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
  /** The longest-idle connection of the address with the most open connections that has one idle. */
  const evictionCandidate = (): Socket | undefined => {
    let best: Set<Socket> | undefined;
    let most = 0;
    for (const [address, set] of idle) {
      const open = perAddress.get(address) ?? 0;
      if (open > most) [best, most] = [set, open];
    }
    return best?.values().next().value;
  };
  const stats = { refused: 0, evicted: 0, pipelineClosed: 0, open: () => tracked.size };

  const refuse = (socket: Socket, address: string, why: string) => {
    stats.refused++;
    if (stats.refused === 1 || stats.refused % 1000 === 0) {
      options.log.warn({ ip: address, refused_total: stats.refused, reason: why }, 'refused a connection');
    }
    // Plain HTTP gets a short answer; a TLS handshake cannot be answered in plain text.
    if (options.secure) socket.destroy();
    else socket.end(BUSY_ANSWER);
    socket.destroySoon?.();
  };

  const onConnection = (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const mine = perAddress.get(address) ?? 0;
    if (mine >= limits.perAddress && !options.trusted(address)) return refuse(socket, address, 'per-address limit');
    if (tracked.size >= limits.total) {
      const victim = evictionCandidate();
      if (!victim) return refuse(socket, address, 'connection limit');
      stats.evicted++;
      release(victim); // counted out now: its 'close' comes later
      victim.destroy();
    }
    tracked.set(socket, { address, pending: 0 });
    markIdle(socket, address);
    perAddress.set(address, mine + 1);
    socket.once('close', () => release(socket));
  };
  /** Forgets a connection (once, whether it was closed by its client or evicted). */
  const release = (socket: Socket) => {
    const entry = tracked.get(socket);
    if (!entry) return;
    tracked.delete(socket);
    markBusy(socket, entry.address);
    const left = (perAddress.get(entry.address) ?? 1) - 1;
    if (left > 0) perAddress.set(entry.address, left);
    else perAddress.delete(entry.address);
  };
  // For HTTPS the requests arrive on the TLS socket, which is what must be tracked.
  server.on(options.secure ? 'secureConnection' : 'connection', onConnection);

  return {
    stats,
    admit(req, res) {
      const socket = req.socket;
      // Requests Node parsed from a connection already closed here are dropped silently.
      if (socket.destroyed) return false;
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
      markBusy(socket, entry.address);
      res.once('close', () => {
        entry.pending--;
        if (entry.pending === 0 && !socket.destroyed) markIdle(socket, entry.address);
      });
      return true;
    },
  };
}
