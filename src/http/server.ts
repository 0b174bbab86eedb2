// The daemon: opens the database, brings its schema up to date, and serves the Koa app over
// HTTP or HTTPS with the configured limits and timeouts. `close()` is the graceful shutdown:
// stop accepting, finish the requests in flight, flush "last used", close the database.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import { watchAccessGeneration } from '../db/access-watch.js';
import { databaseFileWarning, openDatabase, withoutStatementLimit } from '../db/connect.js';
import type { Db } from '../db/dialect.js';
import { migrateLatest, pendingMigrations } from '../db/migrate.js';
import { AccessState } from '../domain/access-state.js';
import { Authenticator, DEFAULT_AUTH_OPTIONS, type AuthenticatorOptions } from '../domain/tokens/authenticate.js';
import { LastUsedRecorder } from '../domain/tokens/last-used.js';
import { configError, errorCode, usage } from '../errors.js';
import { createApp } from './app.js';
import { compileTrust } from './client-address.js';
import { guardConnections, type ConnectionGuard } from './connection-limits.js';
import { scrub } from './errors.js';
import { ReadinessProbe } from './observe/health.js';
import { createLogger } from './observe/log.js';
import { DaemonMetrics } from './observe/metrics.js';
import { databaseUnreachable, listenOn, prepareDataDir } from './startup.js';

export interface DaemonOptions {
  migrate?: boolean;
  host?: string;
  port?: number;
  clock?: Clock;
  /** Where log lines go (default: stdout). */
  logDestination?: NodeJS.WritableStream;
  auth?: Partial<AuthenticatorOptions>;
}

export interface Daemon {
  url: string;
  server: http.Server;
  db: Db;
  log: Logger;
  access: AccessState;
  authenticator: Authenticator;
  lastUsed: LastUsedRecorder;
  connections: ConnectionGuard['stats'];
  readiness: ReadinessProbe;
  metrics: DaemonMetrics;
  /**
   * SIGHUP: logged and otherwise ignored. Nothing is reopened (logs go to stdout, the journal's;
   * the configuration is read at start): restart the service to apply a changed configuration.
   */
  hangup(): void;
  /** Graceful shutdown; resolves when everything is closed. Safe to call twice. */
  close(): Promise<void>;
}

function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
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
  const head = [
    `HTTP/1.1 ${status} ${text}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

function readPem(file: string, key: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw configError(`config error: cannot read "${key}" ${file} (${errorCode(err)})`);
  }
}

export async function startDaemon(config: Config, options: DaemonOptions = {}): Promise<Daemon> {
  const clock = options.clock ?? systemClock;
  // Read before anything is opened, so a bad path stops the start cleanly.
  const tls = config.tls
    ? { cert: readPem(config.tls.cert, 'tls.cert'), key: readPem(config.tls.key, 'tls.key') }
    : null;
  const log = await createLogger(config.log.level, options.logDestination);
  try {
    return await start(config, options, clock, tls, log);
  } catch (err) {
    // Said once in the log (the journal sees it), then by the CLI as its one line on stderr.
    log.fatal({ err: scrub(err) }, 'cannot start');
    await new Promise<void>((resolve) => log.flush(() => resolve()));
    throw err;
  }
}

async function start(
  config: Config,
  options: DaemonOptions,
  clock: Clock,
  tls: { cert: Buffer; key: Buffer } | null,
  log: Logger,
): Promise<Daemon> {
  const fileWarning = databaseFileWarning(config);
  if (fileWarning) log.warn(fileWarning);
  await prepareDataDir(config.dataDir);
  // What is opened from here on is released again when the start fails: nothing may keep the
  // process alive, or keep this daemon registered on PostgreSQL, once it has given up.
  const release: (() => Promise<unknown>)[] = [];
  const releaseAll = async () => {
    for (const step of release.reverse()) await step().catch(() => undefined);
  };
  try {
    return await startOpened(config, options, clock, tls, log, release);
  } catch (err) {
    await releaseAll();
    throw err;
  }
}

async function startOpened(
  config: Config,
  options: DaemonOptions,
  clock: Clock,
  tls: { cert: Buffer; key: Buffer } | null,
  log: Logger,
  release: (() => Promise<unknown>)[],
): Promise<Daemon> {
  let db: Db;
  try {
    db = await openDatabase(config.database, 'daemon');
  } catch (err) {
    throw databaseUnreachable(err, config.database.client);
  }
  release.push(() => db.destroy());
  if (options.migrate === false) {
    const pending = await pendingMigrations(db).catch((err: unknown) => {
      throw databaseUnreachable(err, config.database.client);
    });
    if (pending.length > 0)
      throw usage(
        `the database needs migrations (${pending.join(', ')}); ` +
          'run "archivectl migrate" or start without --no-migrate',
      );
  } else {
    const applied = await withoutStatementLimit(db, migrateLatest).catch((err: unknown) => {
      throw databaseUnreachable(err, config.database.client);
    });
    if (applied.length > 0) log.info({ migrations: applied }, 'applied database migrations');
  }
  const source = await watchAccessGeneration(db, (err) =>
    log.warn({ err: scrub(err) }, 'change notifications interrupted; checking the database per request'),
  );
  const access = new AccessState(db, source);
  release.push(() => access.close());
  const lastUsed = new LastUsedRecorder(db, clock);
  lastUsed.start();
  release.push(() => lastUsed.stop());
  const { limits } = config;
  const authenticator = new Authenticator(db, clock, lastUsed, {
    ...DEFAULT_AUTH_OPTIONS,
    kdf: { ...DEFAULT_AUTH_OPTIONS.kdf, concurrency: limits.kdfConcurrency, total: limits.kdfQueue },
    ...options.auth,
  });
  const trust = compileTrust(config.trustProxy);
  const readiness = new ReadinessProbe(db, source);
  let guard: ReturnType<typeof guardConnections> | null = null;
  const metrics = new DaemonMetrics({ authenticator, lastUsed, readiness, connections: () => guard?.stats ?? null });
  const app = createApp({ deps: { db, clock, config }, log, access, authenticator, trust, readiness, metrics });
  const handle = app.callback();

  let closing = false;
  let inFlight = 0;
  let drained: (() => void) | null = null;
  // A request counts as in flight until its handler has finished, even when its client has
  // gone away meanwhile: shutdown must not close the database under a running handler.
  const onRequest: http.RequestListener = (req, res) => {
    if (guard && !guard.admit(req, res)) return;
    inFlight++;
    if (closing) res.setHeader('Connection', 'close');
    void handle(req, res).finally(() => {
      inFlight--;
      if (inFlight === 0) drained?.();
    });
  };
  const { headersMs, requestMs } = config.timeouts;
  const serverOptions = {
    maxHeaderSize: config.limits.headerBytes,
    // Node checks the header and request deadlines only this often (30 s by default), which
    // would let a stalled client outlive a short deadline by that much.
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(Math.min(headersMs, requestMs) / 2))),
  };
  const server = config.tls
    ? https.createServer({ ...serverOptions, ...tls }, onRequest)
    : http.createServer(serverOptions, onRequest);
  // Slow clients cannot hold the server: headers and whole requests have deadlines.
  server.headersTimeout = config.timeouts.headersMs;
  server.requestTimeout = config.timeouts.requestMs;
  server.keepAliveTimeout = config.timeouts.keepAliveMs;
  server.on('clientError', answerClientError);
  guard = guardConnections(
    server,
    { total: limits.connections, perAddress: limits.connectionsPerAddress, pipelined: limits.pipelinedRequests },
    { trusted: (address) => trust(address, 0), log, secure: Boolean(config.tls) },
  );

  const host = options.host ?? config.listen.host;
  const port = options.port ?? config.listen.port;
  await listenOn(server, host, port);
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${config.tls ? 'https' : 'http'}://${shownHost}:${address.port}`;
  log.info({ url, database: config.database.client }, 'listening');

  let closed: Promise<void> | null = null;
  const close = () =>
    (closed ??= (async () => {
      closing = true;
      log.info({ in_flight: inFlight }, 'shutting down: no new connections, finishing requests in flight');
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const drain = async (ms: number) => {
        if (inFlight === 0) return;
        const deadline = new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
        await Promise.race([new Promise<void>((resolve) => (drained = resolve)), deadline]);
      };
      await drain(config.timeouts.shutdownMs);
      // Past the deadline, connections are cut; handlers still waiting on their clients then
      // end at once (their bodies count as aborted) and remove their temporary files.
      server.closeAllConnections();
      await drain(1_000);
      await stopped;
      await lastUsed.stop();
      await access.close();
      await db.destroy();
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
    connections: guard.stats,
    readiness,
    metrics,
    hangup: () => log.info({ signal: 'SIGHUP' }, 'signal received; ignored (restart to apply a changed configuration)'),
    close,
  };
}
