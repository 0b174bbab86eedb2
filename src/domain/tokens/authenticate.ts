// Turning a presented Bearer value into a principal, cheaply and safely (SPEC §3.3, §4.1; README
// "Security notes" tells operators the same): malformed values cost no I/O; verified ones are
// cached under a SHA-256 of the value (never the value), so scrypt runs once per token per
// process; a value other than a token's known true value costs no KDF; any other verification
// spends two failure budgets, then takes its turn in the KDF queue (kdf-queue.ts). Out of budget,
// a shared trickle of "probation" runs, then 429: a forger sharing the owner's address can
// neither lock the owner out nor buy more than a trickle of CPU.
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/dialect.js';
import type { Role } from '../roles.js';
import { tokenExpiration } from './expiry.js';
import { FailureBudget } from './failure-budget.js';
import { LEGACY_LENGTH, parse, TOKEN_LENGTH, type ParsedToken } from './format.js';
import { hashSecret, needsRehash, verifySecret } from './hash.js';
import { KdfBusy, KdfQueue, type KdfQueueOptions } from './kdf-queue.js';
import { storedLastUsed, type LastUsedRecorder } from './last-used.js';
import { tokenStatus, type TokenRow } from './queries.js';

export interface Principal {
  tokenId: number;
  selector: string;
  accountId: number;
  username: string;
  role: Role;
  /** The Token-Expiration header's value (the first refused instant), null for a token without an end. */
  expiration: string | null;
  /** The last use the database holds once this one is recorded (ms; -Infinity: never). */
  lastUsed: number;
}

/** `throttled`: the client is out of failure budget (429); `busy`: the KDF queue is full (503). */
export type Refusal = 'malformed' | 'unknown' | 'mismatch' | 'revoked' | 'expired' | 'blocked' | 'throttled' | 'busy';

export type AuthResult =
  { ok: true; principal: Principal } | { ok: false; reason: Refusal; selector?: string; retryAfterSeconds?: number };

type AuthRow = Pick<
  TokenRow,
  'id' | 'selector' | 'account_id' | 'username' | 'secret_hash' | 'expires_at' | 'revoked_at' | 'last_used_at'
> & {
  role: Role;
  /** tokenExpiration(expires_at), set on first admission: no date formatting per request. */
  expiration?: string | null;
};

/** A verification's outcome: the row whose secret matched (admitted per request), or a refusal. */
type Verified = { ok: true; verified: AuthRow } | Extract<AuthResult, { ok: false }>;

interface CacheEntry {
  row: AuthRow;
  generation: string;
}

export interface AuthenticatorOptions {
  cacheSize: number;
  kdf: KdfQueueOptions;
  /** Failed verifications per token id and client: burst, and credits regained a minute. */
  perToken: { burst: number; perMinute: number };
  /** Failed verifications per client over all token ids. */
  perClient: { burst: number; perMinute: number };
  /** KDF runs a second, shared by all clients out of budget. */
  probationPerSecond: number;
  /** Budget entries kept at most (each table). */
  budgetKeys: number;
}

export const DEFAULT_AUTH_OPTIONS: AuthenticatorOptions = {
  cacheSize: 10_000,
  kdf: { concurrency: 1, perClient: 16, total: 64 },
  perToken: { burst: 10, perMinute: 10 },
  perClient: { burst: 60, perMinute: 60 },
  probationPerSecond: 5,
  budgetKeys: 100_000,
};

export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  /** Token id → cache key of the value verified for it: the token's true value. */
  private readonly trueValue = new Map<string, string>();
  private readonly verifying = new Map<string, Promise<Verified>>();
  private readonly perToken: FailureBudget;
  private readonly perClient: FailureBudget;
  private readonly probation: FailureBudget;
  readonly kdf: KdfQueue;
  /** Counts of the expensive steps (tests, benchmark); knownMismatches: refused with no KDF. */
  readonly stats = { kdfRuns: 0, lookups: 0, cacheHits: 0, knownMismatches: 0, throttled: 0, busy: 0 };

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly lastUsed: LastUsedRecorder | null,
    private readonly options: AuthenticatorOptions = DEFAULT_AUTH_OPTIONS,
  ) {
    // Budgets count in real elapsed time, whatever the injected clock says about expiry.
    const now = () => performance.now();
    this.kdf = new KdfQueue(options.kdf);
    this.perToken = new FailureBudget({ ...options.perToken, maxKeys: options.budgetKeys }, now);
    this.perClient = new FailureBudget({ ...options.perClient, maxKeys: options.budgetKeys }, now);
    const perSecond = options.probationPerSecond;
    this.probation = new FailureBudget({ burst: Math.max(1, perSecond), perMinute: perSecond * 60, maxKeys: 1 }, now);
  }

  get cacheSize(): number {
    return this.cache.size;
  }

  /**
   * `generation` must be read before this call (the row is then at least as fresh); `client` keys
   * the failure budgets and the KDF queue's turns; `address` is recorded with the use. A malformed
   * value, or one verified under this generation (the common case), is answered without an await.
   */
  authenticate(value: string, generation: string, client = '', address = ''): AuthResult | Promise<AuthResult> {
    // Only a value of a token's length can be one: anything else is refused before it is hashed.
    if (value.length !== TOKEN_LENGTH && value.length !== LEGACY_LENGTH) return { ok: false, reason: 'malformed' };
    const key = createHash('sha256').update(value).digest('base64');
    const cached = this.cache.get(key);
    // A value verified before is well formed: its format and checksum are not read again.
    if (cached && cached.generation === generation) return this.hit(key, cached, cached.row, address);
    const parsed = parse(value);
    if (!parsed) return { ok: false, reason: 'malformed' };
    return this.authenticateAfresh(parsed, key, generation, client, address);
  }

  /** A cached verification still good for `row`: counted, moved to the newest position, admitted. */
  private hit(key: string, cached: CacheEntry, row: AuthRow, address: string): AuthResult {
    cached.row = row;
    this.stats.cacheHits++;
    this.cache.delete(key); // LRU: move to the newest position
    this.cache.set(key, cached);
    return this.admit(row, address);
  }

  private async authenticateAfresh(
    parsed: ParsedToken,
    key: string,
    generation: string,
    client: string,
    address: string,
  ): Promise<AuthResult> {
    const cached = this.cache.get(key);
    if (cached) {
      let row: AuthRow | undefined = cached.row;
      if (cached.generation !== generation) {
        // A revocation, role change, block or deletion may have happened: re-read the row (no KDF).
        row = await this.lookup(parsed.selector);
        if (!row) {
          this.forget(key);
          return { ok: false, reason: 'unknown', selector: parsed.selector };
        }
        cached.generation = generation;
      }
      // The stored hash must be the one this value was verified against; when it is not (the
      // token was re-hashed by another daemon) the value is verified afresh below.
      if (row.secret_hash === cached.row.secret_hash) return this.hit(key, cached, row, address);
      this.forget(key);
    }

    if (await this.knowsOtherValue(parsed.selector, key, generation)) {
      this.stats.knownMismatches++;
      return { ok: false, reason: 'mismatch', selector: parsed.selector };
    }

    // Requests with the same value at once (a client's first burst) share one verification, if
    // they saw the same generation: one that arrives after a revocation must not reuse a
    // verification that read the row before it.
    const flight = `${key} ${generation}`;
    const inFlight = this.verifying.get(flight);
    // A request sharing another's verification is a use of its own (its own address).
    if (inFlight) return this.admitted(await inFlight, address);
    const verification = this.verify(key, parsed, generation, client);
    this.verifying.set(flight, verification);
    try {
      return this.admitted(await verification, address);
    } finally {
      this.verifying.delete(flight);
    }
  }

  /** True when this daemon has verified a different value for `selector`, still its true one. */
  private async knowsOtherValue(selector: string, key: string, generation: string): Promise<boolean> {
    const trueKey = this.trueValue.get(selector);
    if (trueKey === undefined || trueKey === key) return false;
    const entry = this.cache.get(trueKey);
    if (!entry) {
      this.trueValue.delete(selector);
      return false;
    }
    if (entry.generation === generation) return true;
    // Tokens changed since: the same token only if its row is still there (a re-hash keeps the
    // secret; a deleted row's id is never reused, so a new row with this selector is a new token).
    const row = await this.lookup(selector);
    if (row && row.id === entry.row.id) return true;
    this.forget(trueKey);
    return false;
  }

  private async verify(key: string, parsed: ParsedToken, generation: string, client: string): Promise<Verified> {
    const { selector, secret } = parsed;
    // Every attempt spends a credit before any await, so values arriving together cannot all
    // slip under the budget; unknown ids spend too, so budgets say nothing about which ids exist.
    const tokenKey = `${selector} ${client}`;
    // The client's own budget first: a client out of it adds no entries to the per-id table,
    // so flooding ids cannot push other clients' entries out of it.
    const clientCredit = this.perClient.take(client);
    const spent = { client: clientCredit, token: clientCredit && this.perToken.take(tokenKey) };
    const refund = () => {
      if (spent.token) this.perToken.refund(tokenKey);
      if (spent.client) this.perClient.refund(client);
    };
    if ((!spent.token || !spent.client) && !this.probation.take('')) {
      refund();
      this.stats.throttled++;
      const retryAfterSeconds = spent.client ? this.perToken.retryAfter(tokenKey) : this.perClient.retryAfter(client);
      return { ok: false, reason: 'throttled', selector, retryAfterSeconds };
    }
    const row = await this.lookup(selector);
    if (!row) return { ok: false, reason: 'unknown', selector };
    let ok: boolean;
    try {
      ok = await this.kdf.run(client, async () => {
        this.stats.kdfRuns++;
        return verifySecret(row.secret_hash, secret);
      });
    } catch (err) {
      if (!(err instanceof KdfBusy)) throw err;
      refund(); // not an attempt: nothing was checked
      this.stats.busy++;
      return { ok: false, reason: 'busy', selector, retryAfterSeconds: 1 };
    }
    if (!ok) return { ok: false, reason: 'mismatch', selector };
    refund();
    if (needsRehash(row.secret_hash)) await this.rehash(row, secret, client);
    this.remember(key, { row, generation });
    return { ok: true, verified: row };
  }

  /** A shared verification's verdict, admitted for one request (each is a use of its own). */
  private admitted(result: Verified, address: string): AuthResult {
    return 'verified' in result ? this.admit(result.verified, address) : result;
  }

  private admit(row: AuthRow, address: string): AuthResult {
    const at = this.clock.now();
    const status = tokenStatus(row, at);
    if (status !== 'active') return { ok: false, reason: status, selector: row.selector };
    if (row.role === 'blocked') return { ok: false, reason: 'blocked', selector: row.selector };
    if (row.expiration === undefined) row.expiration = tokenExpiration(row.expires_at);
    return {
      ok: true,
      principal: {
        tokenId: row.id,
        selector: row.selector,
        accountId: row.account_id,
        username: row.username,
        role: row.role,
        expiration: row.expiration,
        lastUsed: this.lastUsed
          ? this.lastUsed.touch(row.id, row.last_used_at, address, at.getTime())
          : storedLastUsed(row.last_used_at),
      },
    };
  }

  private async lookup(selector: string): Promise<AuthRow | undefined> {
    this.stats.lookups++;
    return this.db('tokens as t')
      .join('accounts as a', 'a.id', 't.account_id')
      .where('t.selector', selector)
      .first<AuthRow | undefined>(
        't.id',
        't.selector',
        't.account_id',
        'a.username',
        'a.role',
        't.secret_hash',
        't.expires_at',
        't.revoked_at',
        't.last_used_at',
      );
  }

  private remember(key: string, entry: CacheEntry): void {
    if (this.cache.size >= this.options.cacheSize) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.forget(oldest.value);
    }
    this.cache.set(key, entry);
    this.trueValue.set(entry.row.selector, key);
  }

  private forget(key: string): void {
    const entry = this.cache.get(key);
    this.cache.delete(key);
    if (entry && this.trueValue.get(entry.row.selector) === key) this.trueValue.delete(entry.row.selector);
  }

  private async rehash(row: AuthRow, secret: string, client: string): Promise<void> {
    try {
      const fresh = await this.kdf.run(client, () => hashSecret(secret));
      await this.db('tokens').where({ id: row.id, secret_hash: row.secret_hash }).update({ secret_hash: fresh });
      row.secret_hash = fresh;
    } catch (err) {
      if (!(err instanceof KdfBusy)) throw err; // busy: re-hashed on a later use
    }
  }
}
