// Steady authenticated traffic against running daemons while a fault is made, and the tally the
// fault tests assert on and print: requests sent, answers by status, the longest answer, writes
// acknowledged, and answers that accepted a token after its revocation had returned.
import { setTimeout as delay } from 'node:timers/promises';

export interface Outcome {
  kind: 'read' | 'write' | 'revoked-probe';
  /** The HTTP status, or `timeout` (no answer within the bound) or `error` (connection failed). */
  status: number | 'timeout' | 'error';
  startedAt: number;
  ms: number;
  retryAfter: string | null;
  /** Writes: the name sent, to be found in the database when acknowledged. */
  name?: string;
  /** Probes of a revoked token: the token. */
  token?: string;
}

export interface LoadOptions {
  /** Base URLs of the daemons, taken in turn. */
  targets: () => string[];
  readToken: string;
  writeToken: string;
  /** Concurrent clients. */
  workers?: number;
  /** A request without an answer after this long counts as `timeout` (a hang). */
  timeoutMs?: number;
  /** Pause between two requests of one client. */
  pauseMs?: number;
}

export interface Revocation {
  token: string;
  /** performance.now() when the revoking command returned. */
  doneAt: number;
}

export class Load {
  readonly outcomes: Outcome[] = [];
  private readonly revocations: Revocation[] = [];
  private running = false;
  private workers: Promise<void>[] = [];
  private counter = 0;

  constructor(private readonly options: LoadOptions) {}

  start(): void {
    this.running = true;
    const n = this.options.workers ?? 6;
    this.workers = Array.from({ length: n }, (_, i) => this.work(i));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** A token whose revocation has just returned: probed from now on, must never be accepted. */
  revoked(token: string): void {
    this.revocations.push({ token, doneAt: performance.now() });
  }

  private async work(worker: number): Promise<void> {
    while (this.running) {
      const n = this.counter++;
      const targets = this.options.targets();
      const base = targets[n % targets.length] as string;
      const revocation = this.revocations[n % Math.max(1, this.revocations.length)];
      if (revocation && n % 3 === 0) await this.send(base, 'revoked-probe', revocation.token);
      else if (n % 2 === 0) await this.send(base, 'write', this.options.writeToken, `load ${worker}-${n}`);
      else await this.send(base, 'read', this.options.readToken);
      await delay(this.options.pauseMs ?? 20);
    }
  }

  private async send(base: string, kind: Outcome['kind'], token: string, name?: string): Promise<void> {
    const startedAt = performance.now();
    const init: RequestInit = {
      headers: { Authorization: `Bearer ${token}`, ...(name ? { 'Content-Type': 'application/json' } : {}) },
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      ...(name ? { method: 'POST', body: JSON.stringify({ name }) } : {}),
    };
    let status: Outcome['status'];
    let retryAfter: string | null = null;
    try {
      const res = await fetch(new URL(name ? '/api/actors' : '/api/actors?perPage=5', base), init);
      await res.arrayBuffer();
      status = res.status;
      retryAfter = res.headers.get('retry-after');
    } catch (err) {
      status = (err as Error).name === 'TimeoutError' ? 'timeout' : 'error';
    }
    const ms = performance.now() - startedAt;
    const extra = kind === 'revoked-probe' ? { token } : name ? { name } : {};
    this.outcomes.push({ kind, status, startedAt, ms, retryAfter, ...extra });
  }

  /** Answers that accepted a token sent after its revocation had returned. */
  acceptedAfterRevocation(): Outcome[] {
    return this.outcomes.filter(
      (o) =>
        o.kind === 'revoked-probe' &&
        typeof o.status === 'number' &&
        o.status < 300 &&
        this.revocations.some((r) => r.token === o.token && o.startedAt > r.doneAt),
    );
  }

  /** Names of the writes acknowledged with a 2xx. */
  acknowledged(): string[] {
    return this.outcomes
      .filter((o) => o.kind === 'write' && typeof o.status === 'number' && o.status < 300)
      .map((o) => o.name as string);
  }

  /** The figures of the report. */
  summary(): Record<string, unknown> {
    const byStatus: Record<string, number> = {};
    for (const o of this.outcomes) byStatus[String(o.status)] = (byStatus[String(o.status)] ?? 0) + 1;
    const without503RetryAfter = this.outcomes.filter((o) => o.status === 503 && !o.retryAfter).length;
    return {
      sent: this.outcomes.length,
      byStatus,
      longestMs: Math.round(Math.max(0, ...this.outcomes.map((o) => o.ms))),
      writesAcknowledged: this.acknowledged().length,
      revokedAccepted: this.acceptedAfterRevocation().length,
      without503RetryAfter,
    };
  }
}

/** Polls `ok` every 100 ms until it holds or `limitMs` passes; returns the time it took, or null. */
export async function timeUntil(ok: () => Promise<boolean>, limitMs: number): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await ok().catch(() => false)) return Math.round(performance.now() - started);
    await delay(100);
  }
  return null;
}
