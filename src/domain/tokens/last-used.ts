// "Last used" (SPEC §3.4): the first use of a token, and any use more than 60 seconds after the
// recorded one, reaches the database within 2 seconds; never a write per request. Uses are
// collected in memory and written by a timer once a second. The UPDATE itself only moves the
// value forward by more than 60 seconds, so several daemons sharing a database coalesce too.
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/dialect.js';

const LAST_USED_RESOLUTION_MS = 60_000;
const LAST_USED_FLUSH_MS = 1_000;

export class LastUsedRecorder {
  /** Per token: the last_used value this process believes is stored (ms), to skip repeats. */
  private readonly known = new Map<number, number>();
  private readonly pending = new Map<number, string>();
  /** The flush running now, or the last one: the next waits for it (flush()). */
  private flushing: Promise<void> = Promise.resolve();
  /** Flushes started and not ended: the timer adds none while one runs (a stalled database). */
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  /** UPDATE statements issued (for tests and the benchmark). */
  writes = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly maxTracked = 100_000,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      if (this.running === 0) void this.flush().catch(() => undefined);
    }, LAST_USED_FLUSH_MS);
    this.timer.unref();
  }

  /** Called on every authenticated request; `stored` is last_used_at as read from the row. */
  touch(tokenId: number, stored: string | null): void {
    const now = this.clock.now().getTime();
    let last = this.known.get(tokenId);
    if (last === undefined) {
      last = stored ? Date.parse(stored) : Number.NEGATIVE_INFINITY;
      if (this.known.size >= this.maxTracked) this.known.clear(); // bounded: worst case one extra write per token
    }
    if (now - last <= LAST_USED_RESOLUTION_MS) {
      this.known.set(tokenId, last);
      return;
    }
    this.known.set(tokenId, now);
    this.pending.set(tokenId, new Date(now).toISOString());
  }

  /**
   * Writes the pending uses. Resolves once every use recorded before the call is written: a
   * flush already running (the timer's) is waited for, since it holds uses taken from pending.
   * stop() relies on it before the database is closed.
   */
  flush(): Promise<void> {
    this.running++;
    const run = this.flushing.then(() => this.writePending()).finally(() => this.running--);
    this.flushing = run.catch(() => undefined); // a failed write is the caller's; the next flush still runs
    return run;
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending];
    this.pending.clear();
    for (const [tokenId, at] of batch) {
      const threshold = new Date(Date.parse(at) - LAST_USED_RESOLUTION_MS).toISOString();
      this.writes++;
      await this.db('tokens')
        .where('id', tokenId)
        .where((q) => {
          q.whereNull('last_used_at').orWhere('last_used_at', '<', threshold);
        })
        .update({ last_used_at: at });
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
