// Probes for load balancers and service managers, outside /api and without authentication (the
// docs/deployment.md's "Health, readiness, metrics and request ids"). /healthz touches nothing but HTTP, so a
// slow database never gets a live daemon restarted. On /readyz, a change listener that is up but
// does not hear (`unverified`: a pooler in transaction mode) keeps the daemon ready: it reads the
// database per request instead.
// Probes run one database round trip at a time and reuse a result for a moment: they are open to
// anyone, and must not become a way to load the database.
import type { GenerationSource } from '../../db/access-watch.js';
import type { Db } from '../../db/dialect.js';
import type { NotificationState } from '../../db/pg-lease.js';

const READY_TIMEOUT_MS = 2_000;
const REUSE_MS = 500;

export interface Readiness {
  ready: boolean;
  database: 'ok' | 'timeout' | 'unreachable';
  /** Seconds the probe query took (up to the timeout). */
  latency: number;
  /** PostgreSQL only: whether the change-notification listener is connected and hears. */
  notifications?: NotificationState;
}

export class ReadinessProbe {
  private running: Promise<Readiness> | null = null;
  private last: { at: number; result: Readiness } | null = null;

  constructor(
    private readonly db: Db,
    private readonly source: GenerationSource,
  ) {}

  /** The latest result, measured afresh when older than a moment. */
  check(): Promise<Readiness> {
    if (this.last && performance.now() - this.last.at < REUSE_MS) return Promise.resolve(this.last.result);
    this.running ??= this.measure().finally(() => (this.running = null));
    return this.running;
  }

  private async measure(): Promise<Readiness> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), READY_TIMEOUT_MS).unref();
    });
    const query = this.db.raw('select 1').then(
      () => 'ok' as const,
      () => 'unreachable' as const,
    );
    const database = await Promise.race([query, timeout]);
    clearTimeout(timer);
    const notifications = this.source.notifications?.();
    const result: Readiness = {
      ready: database === 'ok' && notifications !== 'down',
      database,
      latency: (performance.now() - started) / 1000,
      ...(notifications ? { notifications } : {}),
    };
    this.last = { at: performance.now(), result };
    return result;
  }
}

export function readinessAnswer(r: Readiness): { status: number; body: Record<string, unknown> } {
  const checks = { database: r.database, ...(r.notifications ? { notifications: r.notifications } : {}) };
  if (r.ready) return { status: 200, body: { status: 'ready', checks } };
  const why =
    r.database !== 'ok'
      ? `the database is ${r.database === 'timeout' ? 'not answering' : 'unreachable'}`
      : 'the change-notification listener is down';
  return { status: 503, body: { error: `not ready: ${why}`, checks } };
}
