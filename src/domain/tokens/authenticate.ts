// Turning a presented Bearer value into a principal, cheaply and safely (docs/security.md). The
// parts, each a module of its own: malformed values cost no I/O (format.ts); verified ones are
// cached (verified-cache.ts), so scrypt runs once per token per process; every other value spends
// the failure budgets (failure-budget.ts), then, if its id names a row, waits for one KDF run in
// the bounded fair queue (verifier.ts, kdf-queue.ts); an unknown id costs no KDF run; uses
// are recorded by last-used.ts, but never a use refused for its address. Requests presenting the
// same value at once share one verification. Leak reports (liveRows) spend no budget at all.
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/dialect.js';
import { SingleFlight } from '../../single-flight.js';
import type { Role } from '../roles.js';
import { addressAllowed } from '../address-blocks.js';
import { tokenExpiration } from './expiry.js';
import { FailureBudgets, type FailureBudgetsOptions } from './failure-budget.js';
import { LEGACY_LENGTH, parse, TOKEN_LENGTH, type ParsedToken } from './format.js';
import { secretCheck } from './hash.js';
import { KdfBusy, type KdfQueue, type KdfQueueOptions } from './kdf-queue.js';
import { storedLastUsed, type LastUsedRecorder } from './last-used.js';
import { findTokenBySelector, findTokensBySelectors, tokenStatus } from './queries.js';
import type { RateLimit } from '../../rate-limit.js';
import { readRestrictions } from './restrictions.js';
import type { Scope } from '../scopes.js';
import { cacheKey, VerifiedTokens, type AuthRow } from './verified-cache.js';
import { Verifier } from './verifier.js';

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
  /** The scopes the token's rights are narrowed to (http/scopes.ts); null: every right of the account. */
  scopes: readonly Scope[] | null;
  /** The CIDR blocks it is accepted from (http/allow-from.ts); null: from anywhere. */
  allowFrom: readonly string[] | null;
  /** Its own request rate; null: none of its own. */
  rateLimit: RateLimit | null;
}

/**
 * `throttled`: the client is out of failure budget (429); `busy`: the KDF queue is full (503);
 * `address`: a right value presented from outside the token's allow_from (403).
 */
export type Refusal =
  'malformed' | 'unknown' | 'mismatch' | 'revoked' | 'expired' | 'blocked' | 'throttled' | 'busy' | 'address';

/** A token whose right value was refused for the address it came from. */
export interface ForeignToken {
  tokenId: number;
  selector: string;
  username: string;
}

type Refused = { ok: false; reason: Refusal; selector?: string; retryAfterSeconds?: number; token?: ForeignToken };

export type AuthResult = { ok: true; principal: Principal } | Refused;

/** A verification's outcome: the row whose secret matched (admitted per request), or a refusal. */
type Verification = { ok: true; row: AuthRow } | Refused;

export interface AuthenticatorOptions extends FailureBudgetsOptions {
  cacheSize: number;
  kdf: KdfQueueOptions;
}

export const DEFAULT_AUTH_OPTIONS: AuthenticatorOptions = {
  cacheSize: 10_000,
  kdf: { concurrency: 2, perClient: 64, total: 1024 },
  perToken: { burst: 10, perMinute: 10 },
  perClient: { burst: 60, perMinute: 60 },
  probationPerSecond: 5,
  budgetKeys: 100_000,
};

const MALFORMED: Refused = { ok: false, reason: 'malformed' };

export class Authenticator {
  private readonly cache: VerifiedTokens;
  private readonly flights = new SingleFlight<string, Verification>();
  private readonly budgets: FailureBudgets;
  private readonly verifier: Verifier;
  /** Running totals of the steps that cost something (the metrics endpoint reads them). */
  readonly stats: { readonly kdfRuns: number; lookups: number; cacheHits: number; throttled: number; busy: number };

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly lastUsed: LastUsedRecorder | null,
    options: AuthenticatorOptions = DEFAULT_AUTH_OPTIONS,
    /** Elapsed ms the failure budgets refill with (default: performance.now). */
    stopwatch?: () => number,
  ) {
    this.cache = new VerifiedTokens(options.cacheSize);
    this.budgets = new FailureBudgets(options, stopwatch);
    const verifier = new Verifier(db, options.kdf);
    this.verifier = verifier;
    this.stats = {
      get kdfRuns() {
        return verifier.runs;
      },
      lookups: 0,
      cacheHits: 0,
      throttled: 0,
      busy: 0,
    };
  }

  get cacheSize(): number {
    return this.cache.size;
  }

  get kdf(): KdfQueue {
    return this.verifier.queue;
  }

  /**
   * `generation` must be read before this call (the row is then at least as fresh); `client` keys
   * the failure budgets and the KDF queue's turns; `address` is recorded with the use.
   */
  async authenticate(value: string, generation: string, client = '', address = ''): Promise<AuthResult> {
    // Only a value of a token's length can be one: anything else is refused before it is hashed.
    if (value.length !== TOKEN_LENGTH && value.length !== LEGACY_LENGTH) return MALFORMED;
    const key = cacheKey(value);
    const cached = this.cache.get(key);
    // A value verified before is well formed: its format and checksum are not read again.
    if (cached?.generation === generation) return this.hit(cached.row, address);
    const parsed = parse(value);
    if (!parsed) return MALFORMED;
    if (cached) {
      // A revocation, role change, block or deletion may have happened: re-read the row (no KDF).
      // It must still hold the hash this value was verified against; when it does not (another
      // daemon re-hashed it) the value is verified afresh below.
      const row = await this.lookup(parsed.selector);
      if (row?.secret_hash === cached.row.secret_hash) {
        this.cache.set(key, { row, generation });
        return this.hit(row, address);
      }
      this.cache.delete(key);
      if (!row) return { ok: false, reason: 'unknown', selector: parsed.selector };
    }
    // Requests with the same value at once (a client's first burst) share one verification, if
    // they saw the same generation: one that arrives after a revocation must not reuse a
    // verification that read the row before it. Each is a use of its own (its own address).
    const verification = await this.flights.run(`${key} ${generation}`, () =>
      this.verify(key, parsed, generation, client),
    );
    return verification.ok ? this.admit(verification.row, address) : verification;
  }

  /**
   * The live (active) tokens among `values`, for a report of leaked values (report.ts), which
   * nobody signs. No use of a token, no failure budget spent, nothing cached: the same work
   * whatever the report holds, so it cannot be starved by forged values nor leave a trace that
   * tells which ids are live. The values' ids are read in one query; a live id's values are then
   * checked by the KDF only where their fingerprint (hash.ts, `secretCheck`) matches the row's, so
   * forged values cost no KDF run; a row without a fingerprint has each of its values checked.
   * The runs wait for their turn in the KDF queue instead of being refused.
   */
  async liveRows(values: readonly string[], client: string): Promise<AuthRow[]> {
    const bySelector = new Map<string, { value: string; secret: string }[]>();
    for (const value of new Set(values)) {
      const parsed = parse(value);
      if (!parsed) continue;
      const candidates = bySelector.get(parsed.selector);
      if (candidates) candidates.push({ value, secret: parsed.secret });
      else bySelector.set(parsed.selector, [{ value, secret: parsed.secret }]);
    }
    if (bySelector.size === 0) return [];
    this.stats.lookups++;
    const rows = new Map(
      (await findTokensBySelectors({ db: this.db }, [...bySelector.keys()])).map((row) => [row.selector, row]),
    );
    const now = this.clock.now();
    const live: AuthRow[] = [];
    // In the order the report named them.
    for (const [selector, candidates] of bySelector) {
      const row = rows.get(selector);
      if (row && tokenStatus(row, now) === 'active' && (await this.holdsSecret(row, candidates, client)))
        live.push(row);
    }
    return live;
  }

  /** Whether one of `candidates` is the secret of `row` (for liveRows). */
  private async holdsSecret(
    row: AuthRow,
    candidates: readonly { value: string; secret: string }[],
    client: string,
  ): Promise<boolean> {
    if (candidates.some((c) => this.cache.get(cacheKey(c.value))?.row.secret_hash === row.secret_hash)) return true;
    const check = row.secret_check ?? null;
    for (const { secret } of candidates)
      if (
        (check === null || secretCheck(secret) === check) &&
        (await this.verifier.matches(row.secret_hash, secret, client, { wait: true }))
      )
        return true;
    return false;
  }

  private hit(row: AuthRow, address: string): AuthResult {
    this.stats.cacheHits++;
    return this.admit(row, address);
  }

  private async verify(key: string, parsed: ParsedToken, generation: string, client: string): Promise<Verification> {
    const { selector, secret } = parsed;
    const spent = this.budgets.spend(client, selector);
    if (!spent.ok) {
      this.stats.throttled++;
      return { ok: false, reason: 'throttled', selector, retryAfterSeconds: spent.retryAfterSeconds };
    }
    const row = await this.lookup(selector);
    // An unknown id is refused without a KDF run. Its answer waits for the same deadline as any
    // refusal (http/auth.ts), and it is busy whenever a known id's would be: neither the answer
    // nor its time says whether the id exists.
    if (!row)
      return this.verifier.queue.hasRoomFor(client)
        ? { ok: false, reason: 'unknown', selector }
        : this.busy(spent, selector);
    let matched: boolean;
    try {
      matched = await this.verifier.matches(row.secret_hash, secret, client);
    } catch (err) {
      if (!(err instanceof KdfBusy)) throw err;
      return this.busy(spent, selector);
    }
    if (!matched) return { ok: false, reason: 'mismatch', selector };
    spent.refund();
    await this.verifier.settle(row, secret, client);
    this.cache.set(key, { row, generation });
    return { ok: true, row };
  }

  /** The KDF queue has no room for the client: not an attempt (nothing was checked), so no credit spent. */
  private busy(spent: { refund: () => void }, selector: string): Refused {
    spent.refund();
    this.stats.busy++;
    return { ok: false, reason: 'busy', selector, retryAfterSeconds: 1 };
  }

  private admit(row: AuthRow, address: string): AuthResult {
    const at = this.clock.now();
    const status = tokenStatus(row, at);
    if (status !== 'active') return { ok: false, reason: status, selector: row.selector };
    if (row.role === 'blocked') return { ok: false, reason: 'blocked', selector: row.selector };
    if (row.expiration === undefined) row.expiration = tokenExpiration(row.expires_at);
    row.restrictions ??= readRestrictions(row);
    const { scopes, allowFrom, rateLimit } = row.restrictions;
    // Refused before it is recorded as a use: the token's last use stays its owner's.
    if (allowFrom !== null && !addressAllowed(allowFrom, address))
      return {
        ok: false,
        reason: 'address',
        selector: row.selector,
        token: { tokenId: row.id, selector: row.selector, username: row.username },
      };
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
        scopes,
        allowFrom,
        rateLimit,
      },
    };
  }

  private lookup(selector: string): Promise<AuthRow | undefined> {
    this.stats.lookups++;
    return findTokenBySelector({ db: this.db }, selector);
  }
}
