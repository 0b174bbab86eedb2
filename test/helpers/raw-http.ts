// Raw TCP access to a daemon, for what fetch cannot send or would normalise: truncated bodies,
// stalled headers, oversized headers, methods fetch forbids (TRACE, CONNECT), paths that the
// URL parser would rewrite. Everything here talks to the address of a daemon URL (127.0.0.1).
import net from 'node:net';

export interface RawResponse {
  status: number;
  statusText: string;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

export type RawOutcome =
  /** A complete HTTP response was read. */
  | { kind: 'response'; response: RawResponse }
  /** The server closed (or reset) the connection without a complete response. */
  | { kind: 'closed'; received: Buffer; error: string | null };

export function addressOf(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) };
}

/** Parses the first complete HTTP/1.x response in `buf`, or null when more bytes are needed. */
export function parseResponse(buf: Buffer, opts: { head?: boolean; atEnd?: boolean } = {}): RawResponse | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const head = buf.subarray(0, end).toString('latin1').split('\r\n');
  const statusLine = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(head[0] ?? '');
  if (!statusLine) throw new Error(`not an HTTP response: ${JSON.stringify(head[0])}`);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const status = Number(statusLine[1]);
  const rest = buf.subarray(end + 4);
  const make = (body: Buffer): RawResponse => ({
    status,
    statusText: statusLine[2] ?? '',
    headers,
    body,
    text: body.toString('utf8'),
  });
  if (opts.head || status === 204 || status === 304 || (status >= 100 && status < 200)) return make(Buffer.alloc(0));
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd === -1) return null;
      const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
      if (Number.isNaN(size)) throw new Error('bad chunk size in response');
      if (size === 0) return make(Buffer.concat(parts));
      if (rest.length < lineEnd + 2 + size + 2) return null;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  const length = headers['content-length'];
  if (length !== undefined) {
    const n = Number(length);
    return rest.length >= n ? make(rest.subarray(0, n)) : null;
  }
  // Delimited by the close of the connection.
  return opts.atEnd ? make(rest) : null;
}

export interface ExchangeOptions {
  /** Give up (reject) when neither a response nor a close arrived in time. Default 5000 ms. */
  timeoutMs?: number;
  /** Half-close the connection after writing (FIN), e.g. to cut a body short. Default false. */
  endAfterWrite?: boolean;
  /** The request is a HEAD request (the response has no body). */
  head?: boolean;
}

/**
 * Writes `payload` on a fresh connection and waits for the first complete response or for the
 * server to close the connection. Rejects when nothing happens within the timeout (a hang).
 */
export function rawExchange(
  url: string,
  payload: string | Buffer | (string | Buffer)[],
  opts: ExchangeOptions = {},
): Promise<RawOutcome> {
  const { host, port } = addressOf(url);
  const timeoutMs = opts.timeoutMs ?? 5000;
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const chunks: Buffer[] = [];
    let done = false;
    let lastError: string | null = null;
    const finish = (outcome: RawOutcome | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const timer = setTimeout(
      () =>
        finish(
          new Error(`no response and no close within ${timeoutMs} ms (received ${Buffer.concat(chunks).length} bytes)`),
        ),
      timeoutMs,
    );
    const tryParse = (atEnd: boolean) => {
      const buf = Buffer.concat(chunks);
      let parsed: RawResponse | null;
      try {
        parsed = parseResponse(buf, { head: opts.head, atEnd });
      } catch (err) {
        finish({ kind: 'closed', received: buf, error: (err as Error).message });
        return;
      }
      if (parsed) finish({ kind: 'response', response: parsed });
      else if (atEnd) finish({ kind: 'closed', received: buf, error: lastError });
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      tryParse(false);
    });
    socket.on('error', (err) => {
      lastError = (err as NodeJS.ErrnoException).code ?? err.message;
    });
    socket.on('close', () => tryParse(true));
    socket.once('connect', () => {
      const parts = Array.isArray(payload) ? payload : [payload];
      for (const p of parts) socket.write(p);
      if (opts.endAfterWrite) socket.end();
    });
  });
}

/** A raw request as text: request line, headers (Host and Connection: close added), body. */
export function rawRequest(
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Buffer {
  const all: Record<string, string> = { Host: '127.0.0.1', Connection: 'close', ...headers };
  if (body !== undefined && all['Content-Length'] === undefined && all['Transfer-Encoding'] === undefined) {
    all['Content-Length'] = String(Buffer.byteLength(body));
  }
  const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body === undefined ? Buffer.alloc(0) : Buffer.from(body)]);
}

export interface HeldSocket {
  readonly socket: net.Socket;
  /** Every byte the server sent so far. */
  received(): Buffer;
  /** Whether the connection is closed. */
  isClosed(): boolean;
  /** Resolves when the connection closes (by either side). */
  readonly closed: Promise<void>;
}

/**
 * Opens a connection and keeps it: for slow-client tests that write on their own schedule;
 * `localAddress` (127.0.0.x) makes it another client.
 */
export function holdConnection(url: string, localAddress?: string): Promise<HeldSocket> {
  const { host, port } = addressOf(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, ...(localAddress ? { localAddress } : {}) });
    const chunks: Buffer[] = [];
    let isClosed = false;
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined); // a reset counts as a close
    const closed = new Promise<void>((done) =>
      socket.on('close', () => {
        isClosed = true;
        done();
      }),
    );
    socket.once('connect', () =>
      resolve({ socket, received: () => Buffer.concat(chunks), isClosed: () => isClosed, closed }),
    );
    socket.once('error', reject);
  });
}

/** Whether a TCP connection to the daemon's address is accepted (false on ECONNREFUSED). */
export function canConnect(url: string, timeoutMs = 2000): Promise<boolean> {
  const { host, port } = addressOf(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connect neither succeeded nor failed within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ECONNREFUSED') resolve(false);
      else reject(err);
    });
  });
}

/** A TCP port on 127.0.0.1 that nothing listens on now (for a program told its port up front). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface WholeAnswer {
  status: number;
  headers: import('node:http').IncomingHttpHeaders;
  text: string;
}

/**
 * One request through node:http or node:https, for headers fetch will not send as given (Host
 * above all); resolves with the whole answer, rejects after 10 s without one.
 */
export function requestWhole(
  client: Pick<typeof import('node:http'), 'request'>,
  options: import('node:https').RequestOptions,
  body?: string,
): Promise<WholeAnswer> {
  return new Promise((resolve, reject) => {
    const req = client.request({ timeout: 10_000, ...options }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}
