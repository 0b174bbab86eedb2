// Budgets of failed token verifications, as token buckets: up to `burst` credits a key, `perMinute`
// regained a minute, continuously; a value that verifies gives its credit back. Never reset
// wholesale: the table is an LRU (lru-cache), so when it is full the entry idle longest goes
// first, and a client that floods new keys evicts its own old entries before anyone else's
// recent ones.
import { LRUCache } from 'lru-cache';
import { atMostKeys } from '../../lru-bound.js';

export interface BudgetOptions {
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
  private readonly buckets: LRUCache<string, Bucket>;

  constructor(
    private readonly options: BudgetOptions,
    private readonly now: () => number,
  ) {
    this.buckets = new LRUCache(atMostKeys(options.maxKeys));
  }

  /** The key's bucket refilled up to `at`; `touch` marks it as used (a take, not a look). */
  private current(key: string, at: number, touch: boolean): Bucket | undefined {
    const bucket = touch ? this.buckets.get(key) : this.buckets.peek(key);
    if (!bucket) return undefined;
    const regained = ((at - bucket.at) * this.options.perMinute) / 60_000;
    bucket.credits = Math.min(this.options.burst, bucket.credits + regained);
    bucket.at = at;
    return bucket;
  }

  /** True when the key has a credit left (and spends it). */
  take(key: string): boolean {
    const at = this.now();
    const bucket = this.current(key, at, true);
    if (!bucket) {
      // A full table drops the entry idle longest; if it has refilled meanwhile, nothing is lost.
      this.buckets.set(key, { credits: this.options.burst - 1, at });
      return true;
    }
    if (bucket.credits < 1) return false;
    bucket.credits -= 1;
    return true;
  }

  /** Gives back a credit spent by `take` (the attempt turned out not to be a failure). */
  refund(key: string): void {
    const bucket = this.current(key, this.now(), false);
    if (!bucket) return;
    bucket.credits = Math.min(this.options.burst, bucket.credits + 1);
    // A full bucket is the same as no entry.
    if (bucket.credits >= this.options.burst) this.buckets.delete(key);
  }

  /** Seconds until the key has a credit again (at least 1). */
  retryAfter(key: string): number {
    const bucket = this.current(key, this.now(), false);
    if (!bucket || bucket.credits >= 1) return 1;
    return Math.max(1, Math.ceil(((1 - bucket.credits) * 60) / this.options.perMinute));
  }
}

export interface FailureBudgetsOptions {
  /** Failed verifications per token id and client: burst, and credits regained a minute. */
  perToken: { burst: number; perMinute: number };
  /** Failed verifications per client over all token ids. */
  perClient: { burst: number; perMinute: number };
  /** KDF runs a second, shared by all clients out of budget. */
  probationPerSecond: number;
  /** Budget entries kept at most (each table). */
  budgetKeys: number;
}

/** An attempt's credits: `refund` gives them back when the value turns out right (or was never checked). */
export type Spent = { ok: true; refund: () => void } | { ok: false; retryAfterSeconds: number };

/**
 * The three budgets a verification spends from, before any await so that values arriving
 * together cannot all slip under them: the client's own, then the client's for this token id;
 * out of either, a shared trickle of "probation" runs, so an attacker who shares the owner's
 * address cannot lock the owner out; beyond it the attempt is refused.
 */
export class FailureBudgets {
  private readonly perToken: FailureBudget;
  private readonly perClient: FailureBudget;
  private readonly probation: FailureBudget;

  /** `now`: real elapsed ms (budgets count in real time, whatever a clock says about expiry). */
  constructor(options: FailureBudgetsOptions, now: () => number = () => performance.now()) {
    this.perToken = new FailureBudget({ ...options.perToken, maxKeys: options.budgetKeys }, now);
    this.perClient = new FailureBudget({ ...options.perClient, maxKeys: options.budgetKeys }, now);
    const perSecond = options.probationPerSecond;
    this.probation = new FailureBudget({ burst: Math.max(1, perSecond), perMinute: perSecond * 60, maxKeys: 1 }, now);
  }

  /** Spends a credit for an attempt at `selector` from `client`; unknown ids spend as known ones do. */
  spend(client: string, selector: string): Spent {
    const tokenKey = `${selector} ${client}`;
    // The client's own budget first: a client out of it adds no entries to the per-id table,
    // so flooding ids cannot push other clients' entries out of it.
    const ownCredit = this.perClient.take(client);
    const idCredit = ownCredit && this.perToken.take(tokenKey);
    const refund = () => {
      if (idCredit) this.perToken.refund(tokenKey);
      if (ownCredit) this.perClient.refund(client);
    };
    if (idCredit || this.probation.take('')) return { ok: true, refund };
    refund();
    const retryAfterSeconds = ownCredit ? this.perToken.retryAfter(tokenKey) : this.perClient.retryAfter(client);
    return { ok: false, retryAfterSeconds };
  }
}
