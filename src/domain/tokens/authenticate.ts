// Turning a presented Bearer value into a principal, cheaply and safely (SPEC §3.3, §4.1):
// - malformed values (prefix, length, alphabet, checksum) are refused with no I/O at all;
// - an unknown selector is refused after one indexed lookup, without running the KDF;
// - a verified value is cached in memory (keyed by a SHA-256 of the value, never the value),
//   so scrypt runs once per token per process; entries are re-checked against the database
//   (without the KDF) whenever the authorisation generation moved, so a revocation, role
//   change, block or deletion counts from the next request;
// - scrypt runs at most `maxConcurrentKdf` at a time (it shares libuv's pool with SQLite and
//   file I/O), and each selector has a budget of failed verifications, so a flood of
//   well-formed values with wrong secrets cannot monopolise the CPU.
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/connect.js';
import type { Role } from '../roles.js';
import { parse } from './format.js';
import { hashSecret, needsRehash, verifySecret } from './hash.js';
import type { LastUsedRecorder } from './last-used.js';
import { tokenStatus } from './queries.js';

export interface Principal {
  tokenId: number;
  selector: string;
  accountId: number;
  username: string;
  role: Role;
}

export type Refusal = 'malformed' | 'unknown' | 'mismatch' | 'revoked' | 'expired' | 'blocked' | 'throttled';

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: Refusal; selector?: string };

interface AuthRow {
  id: number;
  selector: string;
  account_id: number;
  username: string;
  role: Role;
  secret_hash: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

interface CacheEntry {
  row: AuthRow;
  generation: string;
}

export interface AuthenticatorOptions {
  cacheSize: number;
  maxConcurrentKdf: number;
  /** Failed verifications allowed per selector per window before further ones are refused unverified. */
  failureBudget: number;
  failureWindowMs: number;
}

export const DEFAULT_AUTH_OPTIONS: AuthenticatorOptions = {
  cacheSize: 10_000,
  maxConcurrentKdf: 2,
  failureBudget: 10,
  failureWindowMs: 60_000,
};

/** Counts of the expensive steps, for tests and the benchmark. */
export interface AuthStats {
  kdfRuns: number;
  lookups: number;
  cacheHits: number;
  throttled: number;
}

class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly verifying = new Map<string, Promise<AuthResult>>();
  private readonly failures = new Map<string, { count: number; since: number }>();
  private readonly kdf: Semaphore;
  readonly stats: AuthStats = { kdfRuns: 0, lookups: 0, cacheHits: 0, throttled: 0 };

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly lastUsed: LastUsedRecorder | null,
    private readonly options: AuthenticatorOptions = DEFAULT_AUTH_OPTIONS,
  ) {
    this.kdf = new Semaphore(options.maxConcurrentKdf);
  }

  get cacheSize(): number {
    return this.cache.size;
  }

  /** `client` (the caller's address) scopes the failure budget. */
  async authenticate(value: string, generation: string, client = ''): Promise<AuthResult> {
    const parsed = parse(value);
    if (!parsed) return { ok: false, reason: 'malformed' };
    const key = createHash('sha256').update(value).digest('base64');

    const cached = this.cache.get(key);
    if (cached) {
      let row: AuthRow | undefined = cached.row;
      if (cached.generation !== generation) {
        // Something that can withdraw access changed: re-read the row (no KDF).
        row = await this.lookup(parsed.selector);
        if (!row) {
          this.cache.delete(key);
          return { ok: false, reason: 'unknown', selector: parsed.selector };
        }
        cached.generation = generation;
      }
      // The stored hash must be the one this value was verified against; when it is not (the
      // token was rotated, or re-hashed by another daemon) the value is verified afresh below.
      if (row.secret_hash === cached.row.secret_hash) {
        cached.row = row;
        this.stats.cacheHits++;
        this.cache.delete(key); // LRU: move to the newest position
        this.cache.set(key, cached);
        return this.admit(row);
      }
      this.cache.delete(key);
    }

    // The same value arriving on several connections at once (a client's first burst) is
    // verified once: the others wait for that verification instead of running their own.
    const inFlight = this.verifying.get(key);
    if (inFlight) return inFlight;
    const verification = this.verify(key, parsed.selector, parsed.secret, generation, client);
    this.verifying.set(key, verification);
    try {
      return await verification;
    } finally {
      this.verifying.delete(key);
    }
  }

  private async verify(key: string, selector: string, secret: string, generation: string, client: string): Promise<AuthResult> {
    const parsed = { selector, secret };
    // Failed verifications are counted per token id and client address: a client guessing at
    // a (public) token id exhausts its own budget, not the token owner's.
    const budgetKey = `${parsed.selector} ${client}`;
    // An exhausted budget refuses before any I/O: a flood on one selector costs neither KDF
    // runs nor database lookups that legitimate requests would queue behind.
    if (this.overBudget(budgetKey)) {
      this.stats.throttled++;
      return { ok: false, reason: 'throttled', selector: parsed.selector };
    }
    // The attempt counts as a failure from here, before any await, and is refunded if the
    // selector is unknown or the secret verifies: values arriving together cannot all slip
    // under the budget while the first of them are still being looked up or verified.
    this.recordFailure(budgetKey);
    const row = await this.lookup(parsed.selector);
    if (!row) {
      this.refundFailure(budgetKey);
      return { ok: false, reason: 'unknown', selector: parsed.selector };
    }
    const hash = row.secret_hash;
    const ok = await this.kdf.run(async () => {
      this.stats.kdfRuns++;
      return verifySecret(hash, parsed.secret);
    });
    if (!ok) return { ok: false, reason: 'mismatch', selector: parsed.selector };
    this.refundFailure(budgetKey);
    if (needsRehash(hash)) await this.rehash(row, parsed.secret);
    this.remember(key, { row, generation });
    return this.admit(row);
  }

  private admit(row: AuthRow): AuthResult {
    const status = tokenStatus(row, this.clock.now());
    if (status !== 'active') return { ok: false, reason: status, selector: row.selector };
    if (row.role === 'blocked') return { ok: false, reason: 'blocked', selector: row.selector };
    this.lastUsed?.touch(row.id, row.last_used_at);
    return {
      ok: true,
      principal: { tokenId: row.id, selector: row.selector, accountId: row.account_id, username: row.username, role: row.role },
    };
  }

  private async lookup(selector: string): Promise<AuthRow | undefined> {
    this.stats.lookups++;
    return (await this.db('tokens as t')
      .join('accounts as a', 'a.id', 't.account_id')
      .where('t.selector', selector)
      .first(
        't.id',
        't.selector',
        't.account_id',
        'a.username',
        'a.role',
        't.secret_hash',
        't.expires_at',
        't.revoked_at',
        't.last_used_at',
      )) as AuthRow | undefined;
  }

  private remember(key: string, entry: CacheEntry): void {
    if (this.cache.size >= this.options.cacheSize) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(key, entry);
  }

  private overBudget(selector: string): boolean {
    const entry = this.failures.get(selector);
    if (!entry) return false;
    if (this.clock.now().getTime() - entry.since > this.options.failureWindowMs) {
      this.failures.delete(selector);
      return false;
    }
    return entry.count >= this.options.failureBudget;
  }

  private recordFailure(selector: string): void {
    const now = this.clock.now().getTime();
    const entry = this.failures.get(selector);
    if (entry && now - entry.since <= this.options.failureWindowMs) {
      entry.count++;
      return;
    }
    // Bounded: forged values only reach here with a selector that exists, so this map holds at
    // most one entry per real token; the cap is a second guard.
    if (this.failures.size >= this.options.cacheSize) this.failures.clear();
    this.failures.set(selector, { count: 1, since: now });
  }

  private refundFailure(selector: string): void {
    const entry = this.failures.get(selector);
    if (entry && --entry.count <= 0) this.failures.delete(selector);
  }

  /** Stored keys made with older scrypt parameters are replaced on their next successful use. */
  private async rehash(row: AuthRow, secret: string): Promise<void> {
    const fresh = await this.kdf.run(() => hashSecret(secret));
    await this.db('tokens').where({ id: row.id, secret_hash: row.secret_hash }).update({ secret_hash: fresh });
    row.secret_hash = fresh;
  }
}
