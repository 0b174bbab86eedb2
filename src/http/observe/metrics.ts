// /metrics in the Prometheus text format (prom-client; the README lists the metrics). Each daemon
// has a registry of its own: several daemons may run in one process (tests), and the library's
// global registry would mix them. Requests are labelled by route template (`/api/objects/:id`),
// never the raw path: the label set stays bounded whatever clients send.
import ipaddr from 'ipaddr.js';
import type { Next } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Authenticator } from '../../domain/tokens/authenticate.js';
import type { LastUsedRecorder } from '../../domain/tokens/last-used.js';
import type { ConnectionGuard } from '../limits/connection-limits.js';
import type { ApiContext } from '../types.js';
import type { ReadinessProbe } from './health.js';

export type MetricsAccess = 'off' | 'local' | 'on';

/** Milliseconds from a fixed origin that only moves forward (performance.now, unless a test times). */
export type Stopwatch = () => number;

export interface MetricsSources {
  authenticator: Authenticator;
  lastUsed: LastUsedRecorder;
  readiness: ReadinessProbe;
  connections: ConnectionGuard['stats'];
  /** Statements run on the shared rate limit counts (PostgreSQL) so far. */
  rateLimitQueries: () => number;
  stopwatch?: Stopwatch;
  /** Active tokens (handoff tokens aside) ending within each number of days, read at scrape time. */
  expiringTokens?: (days: readonly number[]) => Promise<Map<number, number>>;
}

/** Upper bounds of the request duration buckets, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const EXPIRING_WITHIN_DAYS = [7, 14] as const;

export class DaemonMetrics {
  readonly registry = new Registry();
  readonly stopwatch: Stopwatch;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly durations: Histogram<'method' | 'route'>;
  readonly refusals: Counter<'reason'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    this.stopwatch = sources.stopwatch ?? (() => performance.now());
    collectDefaultMetrics({ register: this.registry, prefix: 'archivectl_' });
    this.requests = new Counter({
      name: 'archivectl_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.durations = new Histogram({
      name: 'archivectl_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by method and route template',
      labelNames: ['method', 'route'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.refusals = new Counter({
      name: 'archivectl_auth_refusals_total',
      help: 'Requests refused at authentication, by reason',
      labelNames: ['reason'],
      registers,
    });
    /** A counter that mirrors a running total kept elsewhere (it only ever grows). */
    const mirrored = (name: string, help: string, read: () => number) => {
      let seen = 0;
      new Counter({
        name,
        help,
        registers,
        collect() {
          const now = read();
          if (now > seen) this.inc(now - seen);
          seen = Math.max(seen, now);
        },
      });
    };
    const gauge = (name: string, help: string, read: () => number | Promise<number>) =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          this.set(await read());
        },
      });
    const { authenticator, lastUsed, readiness, connections, rateLimitQueries, expiringTokens } = sources;
    const { stats, kdf } = authenticator;
    mirrored('archivectl_kdf_runs_total', 'Token verifications that ran the KDF (scrypt)', () => stats.kdfRuns);
    gauge('archivectl_kdf_running', 'KDF runs in progress', () => kdf.running);
    gauge('archivectl_kdf_waiting', 'Token verifications waiting for a KDF run', () => kdf.queued);
    mirrored('archivectl_kdf_busy_total', 'Verifications refused because the KDF queue was full', () => stats.busy);
    gauge('archivectl_token_cache_entries', 'Verified token values held in memory', () => authenticator.cacheSize);
    mirrored('archivectl_token_cache_hits_total', 'Requests whose token was verified already', () => stats.cacheHits);
    mirrored('archivectl_token_lookups_total', 'Token rows read from the database', () => stats.lookups);
    mirrored('archivectl_last_used_writes_total', 'UPDATEs of tokens.last_used_at flushed', () => lastUsed.writes);
    mirrored(
      'archivectl_rate_limit_queries_total',
      'Statements on the shared rate limit counts (PostgreSQL): allotments taken and given back',
      rateLimitQueries,
    );
    gauge('archivectl_connections_open', 'Open client connections', () => connections.open());
    mirrored('archivectl_connections_refused_total', 'Connections refused at the limits', () => connections.refused);
    // The readiness probe's own measurement: a scrape sees what a load balancer would.
    gauge('archivectl_database_up', '1 when the database answered the readiness probe in time', async () =>
      (await readiness.check()).database === 'ok' ? 1 : 0,
    );
    gauge(
      'archivectl_database_latency_seconds',
      'Time the readiness probe query took (up to its timeout)',
      async () => (await readiness.check()).latency,
    );
    if (expiringTokens) {
      new Gauge({
        name: 'archivectl_tokens_expiring',
        help: 'Active tokens (handoff tokens aside) that end within the given number of days',
        labelNames: ['within_days'],
        registers,
        async collect() {
          // A database that cannot answer leaves the last counts; /metrics itself still answers.
          const counts = await expiringTokens(EXPIRING_WITHIN_DAYS).catch(() => null);
          for (const [days, n] of counts ?? []) this.set({ within_days: String(days) }, n);
        },
      });
    }
    gauge('archivectl_ready', '1 when /readyz answers 200', async () => ((await readiness.check()).ready ? 1 : 0));
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Counts and times every answer by route template (paths outside the matrix as `unmatched`). */
export function countRequests(metrics: DaemonMetrics) {
  return async function count(ctx: ApiContext, next: Next): Promise<void> {
    const started = metrics.stopwatch();
    try {
      await next();
    } finally {
      const { method } = ctx;
      const route = ctx.state.route?.path ?? (ctx.state.probe ? ctx.path : 'unmatched');
      metrics.durations.observe({ method, route }, (metrics.stopwatch() - started) / 1000);
      metrics.requests.inc({ method, route, status: ctx.status });
      if (ctx.state.authRefusal) metrics.refusals.inc({ reason: ctx.state.authRefusal });
    }
  };
}

/** Whether a client (its address after `trustProxy`) may read /metrics. */
export function mayReadMetrics(access: MetricsAccess, clientIp: string): boolean {
  if (access === 'on') return true;
  if (access === 'off' || !ipaddr.isValid(clientIp)) return false;
  return ipaddr.process(clientIp).range() === 'loopback';
}
