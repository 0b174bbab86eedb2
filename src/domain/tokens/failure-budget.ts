// Budgets of failed token verifications, as token buckets: up to `burst` credits a key, `perMinute`
// regained a minute, continuously; a value that verifies gives its credit back. Never reset
// wholesale: when the bounded table is full the entry idle longest goes first, so a client that
// floods new keys evicts its own old entries before anyone else's recent ones.

interface BudgetOptions {
  burst: number;
  perMinute: number;
  /** Keys tracked at most. */
  maxKeys: number;
}

interface Bucket {
  credits: number;
  at: number;
}

export class FailureBudget {
  /** Least recently touched first (entries are re-inserted when touched). */
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly options: BudgetOptions,
    private readonly now: () => number,
  ) {}

  private current(key: string, at: number): Bucket | undefined {
    const bucket = this.buckets.get(key);
    if (!bucket) return undefined;
    const regained = ((at - bucket.at) * this.options.perMinute) / 60_000;
    bucket.credits = Math.min(this.options.burst, bucket.credits + regained);
    bucket.at = at;
    return bucket;
  }

  /** True when the key has a credit left (and spends it). */
  take(key: string): boolean {
    const at = this.now();
    const bucket = this.current(key, at);
    if (bucket) {
      this.buckets.delete(key);
      this.buckets.set(key, bucket);
      if (bucket.credits < 1) return false;
      bucket.credits -= 1;
      return true;
    }
    if (this.buckets.size >= this.options.maxKeys) {
      // The first entry is the one idle longest; if it has refilled meanwhile, nothing is lost.
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
    this.buckets.set(key, { credits: this.options.burst - 1, at });
    return true;
  }

  /** Gives back a credit spent by `take` (the attempt turned out not to be a failure). */
  refund(key: string): void {
    const bucket = this.current(key, this.now());
    if (!bucket) return;
    bucket.credits = Math.min(this.options.burst, bucket.credits + 1);
    // A full bucket is the same as no entry.
    if (bucket.credits >= this.options.burst) this.buckets.delete(key);
  }

  /** Seconds until the key has a credit again (at least 1). */
  retryAfter(key: string): number {
    const bucket = this.current(key, this.now());
    if (!bucket || bucket.credits >= 1) return 1;
    return Math.max(1, Math.ceil(((1 - bucket.credits) * 60) / this.options.perMinute));
  }
}
