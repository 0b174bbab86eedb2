// Worker thread of bench/attacks.js: generates the attack traffic on its own event loop, so that
// the main thread's legitimate clients and its latency figures are not delayed by the attacker's
// work (both still share the machine's CPUs with the daemon). Talks only to the daemon on
// 127.0.0.1, from source addresses 127.0.0.2 and up (all of 127.0.0.0/8 is local on Linux).
//
// Messages from the main thread: {type:'start', kind, opts}, {type:'selector', selector},
// {type:'stop'}. Answers: {type:'started', info}, {type:'selector-ok'}, {type:'stopped', stats}.
// Every kind is bounded in count (opts) and stops, destroying every socket, on 'stop'.
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

const { checksum, randomBase62 } = await import(workerData.formatModule);
// Set by each 'start' message (a restarted daemon may listen elsewhere).
let host = '127.0.0.1';
let port = 0;
const PATH = '/api/actors?perPage=5';

const forgedValue = (selector) => {
  const secret = randomBase62(40);
  return `arc_${selector}${secret}${checksum(selector + secret)}`;
};
const requestText = (value, keepAlive = true) =>
  `GET ${PATH} HTTP/1.1\r\nHost: ${host}:${port}\r\n${value ? `Authorization: Bearer ${value}\r\n` : ''}${keepAlive ? '' : 'Connection: close\r\n'}\r\n`;

/**
 * Minimal HTTP/1.1 response reader for raw sockets: status line, Content-Length or chunked
 * bodies (the daemon's answers carry one or the other). Calls onResponse(status, headers).
 */
class ResponseReader {
  constructor(onResponse) {
    this.onResponse = onResponse;
    this.buf = Buffer.alloc(0);
    this.state = 'head';
    this.need = 0;
    this.pending = null;
    this.broken = false;
  }
  push(chunk) {
    if (this.broken) return;
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    let off = 0;
    for (;;) {
      if (this.state === 'head') {
        const end = this.buf.indexOf('\r\n\r\n', off, 'latin1');
        if (end < 0) {
          if (this.buf.length - off > 65536) this.broken = true;
          break;
        }
        const head = this.buf.toString('latin1', off, end);
        off = end + 4;
        const lines = head.split('\r\n');
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1] ?? 0);
        const headers = {};
        for (let i = 1; i < lines.length; i++) {
          const c = lines[i].indexOf(':');
          if (c > 0) headers[lines[i].slice(0, c).trim().toLowerCase()] = lines[i].slice(c + 1).trim();
        }
        this.pending = { status, headers };
        if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
          this.state = 'chunk-size';
        } else if (headers['content-length'] !== undefined) {
          this.need = Number(headers['content-length']);
          this.state = 'body';
        } else if (status === 204 || status === 304) {
          this.finish();
        } else {
          this.state = 'until-close'; // no length: the body ends with the connection
        }
      } else if (this.state === 'body') {
        const take = Math.min(this.need, this.buf.length - off);
        off += take;
        this.need -= take;
        if (this.need > 0) break;
        this.finish();
      } else if (this.state === 'chunk-size') {
        const eol = this.buf.indexOf('\r\n', off, 'latin1');
        if (eol < 0) break;
        const size = parseInt(this.buf.toString('latin1', off, eol), 16);
        off = eol + 2;
        if (size === 0) {
          this.state = 'trailer';
        } else {
          this.need = size + 2;
          this.state = 'chunk-data';
        }
      } else if (this.state === 'chunk-data') {
        const take = Math.min(this.need, this.buf.length - off);
        off += take;
        this.need -= take;
        if (this.need > 0) break;
        this.state = 'chunk-size';
      } else if (this.state === 'trailer') {
        const eol = this.buf.indexOf('\r\n', off, 'latin1');
        if (eol < 0) break;
        const empty = eol === off;
        off = eol + 2;
        if (empty) this.finish();
      } else {
        off = this.buf.length; // until-close: discard
        break;
      }
    }
    this.buf = off >= this.buf.length ? Buffer.alloc(0) : this.buf.subarray(off);
  }
  finish() {
    const p = this.pending;
    this.pending = null;
    this.state = 'head';
    this.onResponse(p.status, p.headers);
  }
  /** The connection ended: a body that ran until the close is complete now. */
  end() {
    if (this.state === 'until-close' && this.pending) this.finish();
  }
}

function newStats() {
  return { sent: 0, answered: 0, statuses: {}, socketErrors: {}, closedByDaemon: 0, connects: 0, connectFailures: 0 };
}
const countStatus = (stats, status) => {
  stats.answered++;
  stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
};
const countError = (stats, err) => {
  const code = err?.code ?? err?.message ?? 'error';
  stats.socketErrors[code] = (stats.socketErrors[code] ?? 0) + 1;
};
/** An error on a socket; one before its connection was made is also a failed connect. */
const countSocketError = (stats, err, connected) => {
  countError(stats, err);
  if (!connected) stats.connectFailures++;
};
// Feeds a socket's bytes to its reader and counts its errors. Listeners run in the order they were
// added, so a 'close' listener added afterwards sees the reader's last answer already counted.
const watchSocket = (sock, reader, stats, isConnected) => {
  sock.on('data', (d) => reader.push(d));
  sock.on('error', (err) => countSocketError(stats, err, isConnected()));
  sock.on('close', () => reader.end());
};
const address = (i) => `127.0.0.${2 + i}`;

/** Timers that stop() clears all at once: no reconnect runs after an attack was stopped. */
function timerSet() {
  const timers = new Set();
  return {
    later: (fn, ms) => {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms);
      timers.add(t);
    },
    clearAll: () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}

let current = null; // { kind, stats, stop(): void, info }

/** An attack of `kind` running on `sockets`: stopping it clears its timers and destroys them all. */
function attack(kind, stats, sockets, clearTimers, stopping, more = {}) {
  return {
    kind,
    stats,
    info: {},
    ...more,
    stop() {
      stopping();
      clearTimers();
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// (a) One connection pipelining `count` requests, written as fast as the socket accepts them;
// every `noTokenEvery`-th request carries no token, the others a well-formed forged value with
// a random id. Responses are read and counted (the daemon would otherwise stop on backpressure).
// If the daemon closes the connection (a pipelining limit), the attacker opens the next one and
// goes on with the requests not written yet — one connection at a time, `count` requests in all;
// requests written to a closed connection and never answered count as unanswered.
function startPipeline({ count, noTokenEvery, batch, reconnectDelayMs }) {
  const stats = newStats();
  const t0 = Date.now();
  // Built before the phase starts: the attacker's own CPU is not part of the measurement.
  const chunks = [];
  let parts = [];
  for (let i = 0; i < count; i++) {
    parts.push(requestText(i % noTokenEvery === noTokenEvery - 1 ? null : forgedValue(randomBase62(8))));
    if (parts.length === batch || i === count - 1) {
      chunks.push({ buf: Buffer.from(parts.join(''), 'latin1'), n: parts.length });
      parts = [];
    }
  }
  const buildMs = Date.now() - t0;
  let stopped = false;
  let sock = null;
  let timer = null;
  let next = 0;
  const info = { buildMs, bytes: chunks.reduce((s, c) => s + c.buf.length, 0) };
  return new Promise((resolve) => {
    let firstConnectAt = null;
    const connect = () => {
      if (stopped) return;
      const s = net.connect({ host, port, localAddress: address(0) });
      sock = s;
      let connected = false;
      const reader = new ResponseReader((status) => {
        countStatus(stats, status);
        if (stats.answered === count) info.allAnsweredMs = Date.now() - firstConnectAt;
      });
      const pump = () => {
        while (!stopped && !s.destroyed && next < chunks.length) {
          const c = chunks[next++];
          stats.sent += c.n;
          if (!s.write(c.buf)) {
            s.once('drain', pump);
            return;
          }
        }
        if (next >= chunks.length && info.allWrittenMs === undefined) info.allWrittenMs = Date.now() - firstConnectAt;
      };
      s.on('connect', () => {
        connected = true;
        stats.connects++;
        if (firstConnectAt === null) {
          firstConnectAt = Date.now();
          resolve(info);
        }
        pump();
      });
      watchSocket(s, reader, stats, () => connected);
      s.on('close', () => {
        if (stopped) return;
        if (connected) {
          stats.closedByDaemon++;
          info.firstCloseAfterMs ??= Date.now() - firstConnectAt;
          info.answeredBeforeFirstClose ??= stats.answered;
        }
        if (next < chunks.length) timer = setTimeout(connect, connected ? reconnectDelayMs : 100);
      });
    };
    connect();
    setTimeout(() => resolve(info), 10_000); // no connection at all: the phase runs anyway
    current = {
      kind: 'pipeline',
      stats,
      info,
      stop() {
        stopped = true;
        clearTimeout(timer);
        sock?.destroy();
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// (b) `count` connections from `addresses` source addresses. Even slots send one keep-alive
// request (no token) and then stay idle; odd slots connect and send nothing. The attacker keeps
// its hold: a slot whose connection the daemon closed reconnects after `reopenDelayMs`, doubled
// (up to `reopenMaxDelayMs`) while its connections are refused or closed within a second — a
// persistent pool, not a connection flood — and never more than `maxReopens` times in all.
function startIdle({
  count,
  addresses,
  rampConcurrency,
  reopenDelayMs,
  reopenMaxDelayMs,
  maxReopens,
  connectTimeoutMs,
  rampTimeoutMs,
}) {
  const stats = { ...newStats(), reopened: 0, oneRequestAnswered: {}, open: 0, openMax: 0, openMinAfterRamp: null };
  let stopped = false;
  const sockets = new Set();
  const info = {};
  const t0 = Date.now();
  let pendingConnects = 0;
  let nextSlot = 0;
  let firstRoundDone = 0;
  let rampResolve;
  const ramped = new Promise((r) => (rampResolve = r));
  const { later, clearAll: clearTimers } = timerSet();

  const backoff = new Map(); // slot → current reopen delay
  const open = (slot, first) => {
    if (stopped) return;
    pendingConnects++;
    let connectedAt = 0;
    const sock = net.connect({ host, port, localAddress: address(slot % addresses) });
    sockets.add(sock);
    let connected = false;
    let settled = false;
    const settleFirst = () => {
      if (settled) return;
      settled = true;
      pendingConnects--;
      if (first) {
        firstRoundDone++;
        if (firstRoundDone === count) rampResolve();
        fill();
      }
    };
    sock.setTimeout(connectTimeoutMs, () => {
      if (!connected) sock.destroy(Object.assign(new Error('connect timeout'), { code: 'CONNECT_TIMEOUT' }));
    });
    const reader = new ResponseReader((status) => {
      stats.oneRequestAnswered[status] = (stats.oneRequestAnswered[status] ?? 0) + 1;
      countStatus(stats, status);
    });
    sock.on('connect', () => {
      connected = true;
      connectedAt = Date.now();
      sock.setTimeout(0);
      stats.connects++;
      stats.open++;
      if (stats.open > stats.openMax) stats.openMax = stats.open;
      settleFirst();
      if (slot % 2 === 0) {
        sock.write(requestText(null));
        stats.sent++;
      }
    });
    watchSocket(sock, reader, stats, () => connected);
    sock.on('close', () => {
      sockets.delete(sock);
      settleFirst();
      if (connected) stats.open--;
      if (stopped) return;
      if (connected) stats.closedByDaemon++;
      if (stats.reopened < maxReopens) {
        stats.reopened++;
        const quick = !connected || Date.now() - connectedAt < 1_000;
        const delay = quick ? Math.min(reopenMaxDelayMs, (backoff.get(slot) ?? reopenDelayMs / 2) * 2) : reopenDelayMs;
        backoff.set(slot, delay);
        later(() => open(slot, false), delay * (0.9 + Math.random() * 0.2));
      }
    });
  };
  // Ramp: at most `rampConcurrency` connects pending at once (the listen backlog is finite).
  const fill = () => {
    while (!stopped && nextSlot < count && pendingConnects < rampConcurrency) open(nextSlot++, true);
  };
  fill();
  const sampler = setInterval(() => {
    if (info.rampMs !== undefined && (stats.openMinAfterRamp === null || stats.open < stats.openMinAfterRamp))
      stats.openMinAfterRamp = stats.open;
  }, 100);
  current = {
    kind: 'idle',
    stats,
    info,
    stop() {
      stopped = true;
      clearInterval(sampler);
      clearTimers();
      info.openAtStop = stats.open;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
  return Promise.race([ramped, new Promise((r) => setTimeout(r, rampTimeoutMs))]).then(() => {
    info.rampMs = Date.now() - t0;
    info.openAfterRamp = stats.open;
    info.rampComplete = firstRoundDone === count;
    return info;
  });
}

// ---------------------------------------------------------------------------------------------
// (c)/(d) `clients` clients, one per source address, each looping on one keep-alive connection:
// a request with a forged value (valid format, fresh wrong secret) for the current selector,
// then the next as soon as the answer arrives. No selector yet → the clients wait for one.
function startForged({ clients, selector, maxRequests, reconnectDelayMs }) {
  const stats = { ...newStats(), reconnects: 0 };
  let stopped = false;
  let target = selector ?? null;
  const sockets = new Set();
  const { later, clearAll: clearTimers } = timerSet();
  const client = (i) => {
    if (stopped) return;
    if (!target) {
      later(() => client(i), 20);
      return;
    }
    const sock = net.connect({ host, port, localAddress: address(i) });
    sockets.add(sock);
    let connected = false;
    let inFlight = false;
    const send = () => {
      if (stopped || sock.destroyed) return;
      if (stats.sent >= maxRequests) return;
      inFlight = true;
      stats.sent++;
      sock.write(requestText(forgedValue(target)));
    };
    const reader = new ResponseReader((status, headers) => {
      countStatus(stats, status);
      inFlight = false;
      if (/close/i.test(headers.connection ?? '')) return; // the close handler reconnects
      send();
    });
    sock.on('connect', () => {
      connected = true;
      stats.connects++;
      send();
    });
    watchSocket(sock, reader, stats, () => connected);
    sock.on('close', () => {
      sockets.delete(sock);
      if (stopped) return;
      if (connected) stats.closedByDaemon++;
      if (inFlight)
        stats.socketErrors['closed with a request unanswered'] =
          (stats.socketErrors['closed with a request unanswered'] ?? 0) + 1;
      stats.reconnects++;
      // At once after a close the daemon chose (e.g. after a refusal); slower after failures.
      later(() => client(i), connected && !inFlight ? reconnectDelayMs : 100);
    });
  };
  for (let i = 0; i < clients; i++) client(i);
  current = attack('forged', stats, sockets, clearTimers, () => (stopped = true), {
    setSelector(s) {
      target = s;
    },
  });
  return Promise.resolve({});
}

// ---------------------------------------------------------------------------------------------
// (e) `connections` connections from `addresses` source addresses, each asking for `path` (the
// TEI export, no token: public_access is on) and reading its status line and nothing more. A
// refused one (503) is closed and asked again after `reopenDelayMs`; an answered one is held,
// unread, until the phase ends (the daemon may cut it; a client that reads nothing cannot tell).
function startSlowRead({ connections, addresses, path, reopenDelayMs }) {
  const stats = { ...newStats(), held: 0, heldMax: 0 };
  let stopped = false;
  const sockets = new Set();
  const { later, clearAll: clearTimers } = timerSet();
  const open = (slot) => {
    if (stopped) return;
    const sock = net.connect({ host, port, localAddress: address(slot % addresses) });
    sockets.add(sock);
    let connected = false;
    let held = false;
    sock.on('error', (err) => countSocketError(stats, err, connected));
    sock.on('connect', () => {
      connected = true;
      stats.connects++;
      stats.sent++;
      sock.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
    });
    sock.once('readable', () => {
      const head = sock.read(12);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head?.toString('latin1') ?? '')?.[1] ?? 0);
      countStatus(stats, status);
      if (status === 200) {
        held = true;
        stats.heldMax = Math.max(stats.heldMax, ++stats.held);
        return; // and never read again
      }
      sock.destroy();
    });
    sock.on('close', () => {
      sockets.delete(sock);
      if (held) stats.held--;
      if (stopped) return;
      if (held) stats.closedByDaemon++;
      later(() => open(slot), reopenDelayMs);
    });
  };
  for (let i = 0; i < connections; i++) open(i);
  current = attack('slowread', stats, sockets, clearTimers, () => (stopped = true));
  return Promise.resolve({});
}

// ---------------------------------------------------------------------------------------------
// (f) `connections` connections from `addresses` source addresses, each sending the complete head
// of a JSON POST to `path` (no token) with `Content-Length: contentLength`, then its body one byte
// every `byteEveryMs`. Answers are read and counted; a connection the daemon closes is opened
// again after `reopenDelayMs`.
function startSlowBody({ connections, addresses, path, contentLength, byteEveryMs, reopenDelayMs }) {
  const stats = newStats();
  let stopped = false;
  const trickling = new Map(); // socket → bytes of the body sent
  const { later, clearAll: clearTimers } = timerSet();
  const head = `POST ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`;
  const open = (slot) => {
    if (stopped) return;
    const sock = net.connect({ host, port, localAddress: address(slot % addresses) });
    let connected = false;
    watchSocket(sock, new ResponseReader((status) => countStatus(stats, status)), stats, () => connected);
    sock.on('connect', () => {
      connected = true;
      stats.connects++;
      stats.sent++;
      sock.write(head);
      trickling.set(sock, 0);
    });
    sock.on('close', () => {
      trickling.delete(sock);
      if (stopped) return;
      if (connected) stats.closedByDaemon++;
      later(() => open(slot), reopenDelayMs);
    });
  };
  // One timer for all: a byte on each connection whose body is not complete.
  const ticker = setInterval(() => {
    for (const [sock, sent] of trickling) {
      if (sent >= contentLength || sock.destroyed) continue;
      sock.write(sent === 0 ? '[' : ' ');
      trickling.set(sock, sent + 1);
    }
  }, byteEveryMs);
  for (let i = 0; i < connections; i++) open(i);
  current = {
    kind: 'slowbody',
    stats,
    info: {},
    stop() {
      stopped = true;
      clearInterval(ticker);
      clearTimers();
      for (const s of trickling.keys()) s.destroy();
      trickling.clear();
    },
  };
  return Promise.resolve({});
}

// ---------------------------------------------------------------------------------------------
// (g) `clients` clients, one per source address, each looping on a keep-alive connection on one
// heavy request, by turns: the TEI export rebuilt for `?ids=1` (with `token`, any user's), the
// BEACON dump of actors (no token), a reconciliation batch of `batch` queries (no token). Each
// answer is read whole before the next request.
function startHeavy({ clients, token, batch }) {
  const stats = { ...newStats(), byKind: {} };
  let stopped = false;
  const sockets = new Set();
  const { later, clearAll: clearTimers } = timerSet();
  const queries = encodeURIComponent(
    JSON.stringify(Object.fromEntries(Array.from({ length: batch }, (_, i) => [`q${i}`, { query: `Actor ${i}` }]))),
  );
  const requests = [
    ['ids', `GET /api/tei/actors?ids=1 HTTP/1.1\r\nHost: ${host}:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`],
    ['beacon', `GET /api/actors?format=beacon HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`],
    [
      'batch',
      `POST /api/actors/reconcile HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
        `Content-Length: ${Buffer.byteLength(`queries=${queries}`)}\r\n\r\nqueries=${queries}`,
    ],
  ];
  const client = (i) => {
    if (stopped) return;
    const [kind, text] = requests[i % requests.length];
    const sock = net.connect({ host, port, localAddress: address(i) });
    sockets.add(sock);
    let connected = false;
    const send = () => {
      if (stopped || sock.destroyed) return;
      stats.sent++;
      sock.write(text);
    };
    const reader = new ResponseReader((status, headers) => {
      countStatus(stats, status);
      const k = `${kind} ${status}`;
      stats.byKind[k] = (stats.byKind[k] ?? 0) + 1;
      if (/close/i.test(headers.connection ?? '')) return; // the close handler reconnects
      // A refusal says when to come back.
      if (status === 503) later(send, 1000 * Number(headers['retry-after'] ?? 1));
      else send();
    });
    sock.on('connect', () => {
      connected = true;
      stats.connects++;
      send();
    });
    watchSocket(sock, reader, stats, () => connected);
    sock.on('close', () => {
      sockets.delete(sock);
      if (stopped) return;
      if (connected) stats.closedByDaemon++;
      later(() => client(i), 100);
    });
  };
  for (let i = 0; i < clients; i++) client(i);
  current = attack('heavy', stats, sockets, clearTimers, () => (stopped = true));
  return Promise.resolve({});
}

async function handle(msg) {
  if (msg.type === 'start') {
    ({ host, port } = msg.target);
    const start = {
      pipeline: startPipeline,
      idle: startIdle,
      forged: startForged,
      slowread: startSlowRead,
      slowbody: startSlowBody,
      heavy: startHeavy,
    }[msg.kind];
    const info = await start(msg.opts);
    parentPort.postMessage({ type: 'started', info });
  } else if (msg.type === 'selector') {
    current?.setSelector?.(msg.selector);
    parentPort.postMessage({ type: 'selector-ok' });
  } else if (msg.type === 'stop') {
    const c = current;
    current = null;
    c?.stop();
    // Sockets are destroyed; give their close events a moment before reporting.
    await new Promise((r) => setTimeout(r, 50));
    parentPort.postMessage({ type: 'stopped', stats: c?.stats ?? null, info: c?.info ?? null });
  }
}
// A failed message is left unhandled on purpose: it ends this worker, and the parent's 'error'
// listener reports it and starts a fresh worker on the next call.
parentPort.on('message', (msg) => void handle(msg));
parentPort.postMessage({ type: 'ready' });
