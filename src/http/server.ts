// The daemon: opens the database, brings its schema up to date, and serves the Koa app over
// HTTP or HTTPS with the configured limits and timeouts until its graceful `close()`.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Server, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import { watchAccessGeneration } from '../db/access-watch.js';
import {
  closeDatabase,
  databaseFileWarning,
  databaseLocation,
  openDatabase,
  withoutStatementLimit,
} from '../db/connect.js';
import type { Db } from '../db/dialect.js';
import { migrateAtStart, pendingAtStart } from '../db/migrate.js';
import { AccessState } from '../domain/access-state.js';
import { Authenticator, DEFAULT_AUTH_OPTIONS, type AuthenticatorOptions } from '../domain/tokens/authenticate.js';
import { expiringCounts, ExpiryNotices } from '../domain/tokens/expiring.js';
import { LastUsedRecorder } from '../domain/tokens/last-used.js';
import { isAppError, usage } from '../errors.js';
import { createApp } from './app.js';
import { RequestLimits } from './limits/rate-limits.js';
import { compileTrust } from './client-address.js';
import { guardConnections, type ConnectionGuard } from './limits/connection-limits.js';
import { scrub } from './errors.js';
import { ReadinessProbe } from './observe/health.js';
import { createLogger, logAppErrors } from './observe/log.js';
import { DaemonMetrics, type Stopwatch } from './observe/metrics.js';
import {
  databaseUnreachable,
  listenOn,
  listenOnSockets,
  prepareDataDir,
  readTlsFiles,
  type TlsFiles,
} from './startup.js';

export interface DaemonOptions {
  migrate?: boolean;
  host?: string;
  port?: number;
  /** Listening sockets passed by systemd (inherited-sockets.ts); when given, `host`, `port` and `listen` are unused. */
  sockets?: number[];
  clock?: Clock;
  /** Where log lines go (default: stdout). */
  logDestination?: NodeJS.WritableStream;
  auth?: Partial<AuthenticatorOptions>;
  /** What requests are timed with for /metrics, and failure budgets refill with (default: performance.now). */
  stopwatch?: Stopwatch;
}

export interface Daemon {
  url: string;
  server: http.Server;
  db: Db;
  log: Logger;
  access: AccessState;
  authenticator: Authenticator;
  lastUsed: LastUsedRecorder;
  /** The daily warning about tokens in use that end soon (checked at start and every ten minutes). */
  expiryNotices: ExpiryNotices;
  connections: ConnectionGuard['stats'];
  readiness: ReadinessProbe;
  metrics: DaemonMetrics;
  /** SIGHUP: logged and ignored; nothing is reopened (logs go to stdout, config is read once). */
  hangup(): void;
  /** Graceful shutdown; resolves when everything is closed. Safe to call twice. */
  close(): Promise<void>;
}

/** Answers a request Node could not parse, then closes; a TLS connection that never finished its handshake at once. */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket, handshaken: WeakSet<Socket>): void {
  if (!socket.writable || ((socket as TLSSocket).encrypted && !handshaken.has(socket))) {
    socket.destroy();
    return;
  }
  const [status, text, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'the request took too long']
        : [400, 'Bad Request', 'malformed HTTP request'];
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.destroySoon();
}

/** A daemon started on a new day writes the notice if none has; a failed check is logged, not fatal. */
async function startExpiryNotices(ctx: { db: Db; clock: Clock }, log: Logger): Promise<ExpiryNotices> {
  const notices = new ExpiryNotices(ctx, (fields, message) => log.warn(fields, message));
  const failed = (err: unknown) => log.warn({ err: scrub(err) }, 'could not check for tokens that expire soon');
  await notices.check().catch(failed);
  notices.start(failed);
  return notices;
}

/**
 * Opens, migrates (with `migrate` false: checks) the database and watches its access generation; a
 * failure in this is the one start-up line naming the database. `opened` gets what to release.
 */
async function readyDatabase(
  config: Config,
  migrate: boolean,
  log: Logger,
  opened: (() => Promise<unknown>)[],
  clock: Clock,
) {
  let pending: string[] = [];
  try {
    const db = await openDatabase(config.database, 'daemon');
    opened.push(() => closeDatabase(db));
    // Either way, a database a later release migrated is refused (exit status 2).
    const where = databaseLocation(config.database);
    if (migrate) {
      const { applied, backup } = await withoutStatementLimit(db, (d) => migrateAtStart(d, where, clock.now()));
      if (backup) log.info({ backup }, 'backed up the database before migrating it');
      if (applied.length > 0) log.info({ migrations: applied }, 'applied database migrations');
    } else {
      pending = await pendingAtStart(db, where);
    }
    const source = await watchAccessGeneration(db, (err) =>
      log.warn({ err: scrub(err) }, 'change notifications interrupted; checking the database per request'),
    );
    if (pending.length === 0) return { db, source };
  } catch (err) {
    if (isAppError(err)) throw err;
    throw databaseUnreachable(err, config.database.client);
  }
  throw usage(
    `the database needs migrations (${pending.join(', ')}); ` +
      'run "archivectl migrate" or start without --no-migrate',
  );
}

/**
 * The cipher suites offered over TLS: Mozilla's "intermediate" list (TLS 1.2 and 1.3, forward
 * secrecy and AEAD only). Node's default adds static-RSA key exchange, CBC, CCM8 and ARIA.
 */
const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/** The HTTP(S) server with the configured limits and deadlines; requests are handled by the caller. */
function createServer(config: Config, tls: TlsFiles | null): http.Server {
  const { headersMs, requestMs, keepAliveMs } = config.timeouts;
  const options = {
    maxHeaderSize: config.limits.headerBytes,
    // Node checks deadlines only this often (30 s by default): a stalled client would outlive them.
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(Math.min(headersMs, requestMs) / 2))),
  };
  const server = tls
    ? https.createServer({
        ...options,
        ...tls,
        minVersion: 'TLSv1.2',
        ciphers: TLS_CIPHERS,
        // The handshake's deadline is the connection guard's (from the TCP accept, not idle time).
      })
    : http.createServer(options);
  server.headersTimeout = headersMs;
  server.requestTimeout = requestMs;
  server.keepAliveTimeout = keepAliveMs;
  const handshaken = new WeakSet<Socket>();
  if (tls) server.on('secureConnection', (socket: TLSSocket) => handshaken.add(socket));
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket, handshaken));
  return server;
}

/** The URL the server listens at (a unix socket systemd passed: `http+unix://` and its path). */
function serverUrl(server: http.Server, secure: boolean): string {
  const scheme = secure ? 'https' : 'http';
  const address = server.address() as AddressInfo | string;
  if (typeof address === 'string') return `${scheme}+unix://${encodeURIComponent(address)}`;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${shownHost}:${address.port}`;
}

const closeServer = (server: Server) => () => new Promise<void>((resolve) => server.close(() => resolve()));

/** Hands requests to the app, counting each until its handler ends: shutdown never closes the database under one. */
function serveRequests(
  server: http.Server,
  handle: ReturnType<Koa['callback']>,
  guard: ConnectionGuard,
  options: { hsts: string | null; secure: boolean },
) {
  const { hsts } = options;
  let closing = false;
  let inFlight = 0;
  let drained: (() => void) | null = null;
  // Connections accepted whose first request has not come yet: at shutdown they get it answered
  // (with Connection: close) rather than cut, since their client sent nothing it could retry.
  const fresh = new Set<Socket>();
  let noneFresh: (() => void) | null = null;
  const forget = (socket: Socket) => {
    if (fresh.delete(socket) && fresh.size === 0) noneFresh?.();
  };
  server.on(options.secure ? 'secureConnection' : 'connection', (socket: Socket) => {
    fresh.add(socket);
    socket.once('close', () => forget(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    forget(req.socket);
    if (!guard.admit(req, res)) return;
    inFlight++;
    if (hsts) res.setHeader('Strict-Transport-Security', hsts);
    if (closing) res.setHeader('Connection', 'close');
    void handle(req, res).finally(() => {
      inFlight--;
      if (inFlight === 0) drained?.();
    });
  });
  return {
    inFlight: () => inFlight,
    /** From now on every answer closes its connection. */
    closing: () => void (closing = true),
    /** Resolves when every accepted connection has sent its first request (or closed), or after `ms`. */
    firstRequests: async (ms: number) => {
      if (fresh.size === 0) return;
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
      await Promise.race([new Promise<void>((resolve) => (noneFresh = resolve)), deadline]);
    },
    /** Resolves when no request is in flight, or after `ms`. */
    drain: async (ms: number) => {
      if (inFlight === 0) return;
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
      await Promise.race([new Promise<void>((resolve) => (drained = resolve)), deadline]);
    },
  };
}

/** Starts the daemon; a failed start releases what was opened, logs the reason and throws it. */
export async function startDaemon(config: Config, options: DaemonOptions = {}): Promise<Daemon> {
  const clock = options.clock ?? systemClock;
  // Read before anything is opened, so a bad path or an exposed key stops the start cleanly.
  const tls = config.tls ? readTlsFiles(config.tls) : null;
  const log = await createLogger(config.log.level, options.logDestination);
  // What is opened is released, last first, on shutdown and on a failed start: nothing may keep
  // the process alive, or this daemon registered on PostgreSQL, once it has given up.
  const opened: (() => Promise<unknown>)[] = [];
  const release = async (failed: boolean) => {
    for (const close of opened.splice(0).reverse()) await (failed ? close().catch(() => undefined) : close());
  };
  try {
    const fileWarning = databaseFileWarning(config);
    if (fileWarning) log.warn(fileWarning);
    await prepareDataDir(config.dataDir);
    const { db, source } = await readyDatabase(config, options.migrate !== false, log, opened, clock);
    const access = new AccessState(db, source);
    opened.push(() => access.close());
    const lastUsed = new LastUsedRecorder(db, clock);
    lastUsed.start();
    opened.push(() => lastUsed.stop());
    const { limits } = config;
    const authenticator = new Authenticator(
      db,
      clock,
      lastUsed,
      {
        ...DEFAULT_AUTH_OPTIONS,
        kdf: { ...DEFAULT_AUTH_OPTIONS.kdf, concurrency: limits.kdfConcurrency, total: limits.kdfQueue },
        ...options.auth,
      },
      options.stopwatch,
    );
    const trust = compileTrust(config.trustProxy);
    const readiness = new ReadinessProbe(db, source);
    const expiryNotices = await startExpiryNotices({ db, clock }, log);
    opened.push(async () => expiryNotices.stop());
    const server = createServer(config, tls);
    const guard = guardConnections(
      server,
      { total: limits.connections, perAddress: limits.connectionsPerAddress, pipelined: limits.pipelinedRequests },
      { trusted: (address) => trust(address, 0), log, handshakeMs: tls ? config.timeouts.headersMs : null },
    );
    const requestLimits = new RequestLimits(db, log);
    opened.push(() => requestLimits.close());
    const metrics = new DaemonMetrics({
      authenticator,
      lastUsed,
      readiness,
      connections: guard.stats,
      rateLimitQueries: () => requestLimits.queries,
      stopwatch: options.stopwatch,
      expiringTokens: (days) => expiringCounts({ db, clock }, days),
    });
    const deps = { db, clock, config };
    const app = createApp({ deps, log, access, authenticator, trust, readiness, metrics, requestLimits });
    // Every line the daemon writes is a log line: Koa's own listener would print to stderr.
    app.on('error', logAppErrors(log));
    const hsts = config.tls?.hsts ? `max-age=${config.tls.hsts}` : null;
    const requests = serveRequests(server, app.callback(), guard, { hsts, secure: tls !== null });

    const sockets = options.sockets ?? [];
    const others = sockets.length > 0 ? await listenOnSockets(server, sockets) : [];
    opened.push(...others.map(closeServer));
    if (sockets.length === 0)
      await listenOn(server, options.host ?? config.listen.host, options.port ?? config.listen.port);
    const url = serverUrl(server, tls !== null);
    log.info(
      { url, database: config.database.client, ...(sockets.length > 0 ? { systemd_sockets: sockets.length } : {}) },
      'listening',
    );

    let closed: Promise<void> | null = null;
    const close = () =>
      (closed ??= (async () => {
        requests.closing();
        log.info({ in_flight: requests.inFlight() }, 'shutting down: no new connections, finishing requests in flight');
        const stopped = closeServer(server)();
        for (const other of others) other.close();
        const { headersMs, shutdownMs } = config.timeouts;
        await requests.firstRequests(Math.min(headersMs, shutdownMs));
        server.closeIdleConnections();
        guard.closeHandshakes(); // no request yet, like the idle ones
        await requests.drain(config.timeouts.shutdownMs);
        // Past the deadline, connections are cut; handlers still waiting on their clients then
        // end at once (their bodies count as aborted) and remove their temporary files. The guard
        // cuts those Node's HTTP layer does not know: in a handshake, refused, past a client error.
        server.closeAllConnections();
        guard.closeAll();
        await requests.drain(1_000);
        await stopped;
        await release(false); // "last used" flushed, the access watch, the database
        log.info('stopped');
        await new Promise<void>((resolve) => log.flush(() => resolve()));
      })());

    return {
      url,
      server,
      db,
      log,
      access,
      authenticator,
      lastUsed,
      expiryNotices,
      connections: guard.stats,
      readiness,
      metrics,
      hangup: () =>
        log.info({ signal: 'SIGHUP' }, 'signal received; ignored (restart to apply a changed configuration)'),
      close,
    };
  } catch (err) {
    await release(true);
    log.fatal({ err: scrub(err) }, 'cannot start');
    await new Promise<void>((resolve) => log.flush(() => resolve()));
    throw err;
  }
}
