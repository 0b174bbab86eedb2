// Request rate limits (README "Rate limits", docs/http-api.md): a token's own rate, else
// `limits.tokenRate`, keyed by the token; requests without a token by `limits.anonymousRate`,
// keyed by the client's address (its budget key: an IPv6 client per /64). Fixed windows counted
// in src/db/request-counts.ts: on PostgreSQL against allotments of counts shared by every daemon
// on the database; on SQLite in this daemon's memory. Every answer to a limited client carries
// the IETF httpapi RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10):
//   RateLimit-Policy: "token";q=600;w=3600      (the policy: q requests per w seconds)
//   RateLimit: "token";r=599;t=3542            (r requests left, the window ends in t seconds)
// beyond the limit 429 with Retry-After and the same fields. A client without a limit costs one
// property check: no counter, no field.
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import { memoryCounter, requestCounter, type Counter, type CounterSpec } from '../../db/request-counts.js';
import type { Db } from '../../db/dialect.js';
import { formatRateLimit, windowSeconds, type RateLimit } from '../../rate-limit.js';
import { httpError, scrub } from '../errors.js';
import type { ApiContext, ApiMiddleware } from '../types.js';

/** Whose requests a count is of: a token's, an address's without a token, an address's leak reports. */
export type Policy = 'token' | 'anonymous' | 'report';

export interface RateLimitResult {
  admitted: boolean;
  /** Requests left in the window. */
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
}

/** How often a failing store is logged: once, not once per request. */
const WARN_EVERY_MS = 60_000;

const resultOf = (res: RateLimiterRes, admitted: boolean): RateLimitResult => ({
  admitted,
  remaining: res.remainingPoints,
  resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
});

/** One request counted against `counter`; a refusal of the limiter is a result, its failure thrown. */
async function count(counter: Counter, key: string | number): Promise<RateLimitResult> {
  try {
    return resultOf(await counter.consume(key), true);
  } catch (err) {
    if (err instanceof RateLimiterRes) return resultOf(err, false);
    throw err;
  }
}

interface Counters {
  spec: CounterSpec;
  shared: Counter;
  /** This daemon's own count, used while the shared one cannot be reached. */
  local: Counter | null;
}

/** This daemon's counters, one per policy and rate, made on first use. */
export class RequestLimits {
  private readonly counters = new Map<string, Counters>();
  private warnedAt = -Infinity;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  /** Statements run on the shared counts (allotments taken and given back), for /metrics. */
  get queries(): number {
    let n = 0;
    for (const { shared } of this.counters.values()) n += shared.queries ?? 0;
    return n;
  }

  /** Gives back what this daemon holds of the shared counts (at shutdown, before the database closes). */
  async close(): Promise<void> {
    await Promise.all([...this.counters.values()].map(async ({ shared }) => shared.close?.()));
  }

  /**
   * Counts one request of `key` under `policy` at `rate`. When the shared counts cannot be read
   * (the database away or stalled) the daemon does not refuse for that: it counts in its own
   * memory, as one daemon on SQLite does, and logs a warning at most once a minute. So a database
   * outage neither lifts the limits nor turns every limited request into a 5xx.
   */
  async take(policy: Policy, rate: RateLimit, key: string | number): Promise<RateLimitResult> {
    const prefix = `${policy}:${formatRateLimit(rate)}`;
    let counters = this.counters.get(prefix);
    if (!counters) {
      const spec = { prefix, points: rate.points, seconds: windowSeconds(rate) };
      counters = { spec, shared: requestCounter(this.db, spec), local: null };
      this.counters.set(prefix, counters);
    }
    try {
      return await count(counters.shared, key);
    } catch (err) {
      const now = performance.now();
      if (now - this.warnedAt >= WARN_EVERY_MS) {
        this.warnedAt = now;
        this.log.warn(
          { err: scrub(err), policy },
          'rate limit counts could not be read from the database; this daemon counts on its own meanwhile',
        );
      }
      counters.local ??= memoryCounter(counters.spec);
      return count(counters.local, key);
    }
  }
}

/**
 * The RateLimit fields of `result` on the answer, appended to any of another policy (a leak
 * report without a token counts under `anonymous` and `report`): one Structured Field list.
 */
export function announce(ctx: ApiContext, policy: Policy, rate: RateLimit, result: RateLimitResult): void {
  ctx.append('RateLimit-Policy', `"${policy}";q=${rate.points};w=${windowSeconds(rate)}`);
  ctx.append('RateLimit', `"${policy}";r=${result.remaining};t=${result.resetSeconds}`);
}

/** The 429 of a spent limit: Retry-After is the window's end (at least a second). */
export function tooManyRequests(message: string, result: RateLimitResult) {
  return httpError(429, `${message}; retry in ${Math.max(1, result.resetSeconds)} s`, {
    'Retry-After': String(Math.max(1, result.resetSeconds)),
  });
}

const perWindow = (rate: RateLimit) => `${rate.points} requests per ${rate.per}`;

/**
 * The pipeline step (app.ts) that counts, run once the token has been judged and before the body
 * is read: a request past its limit is then known to be refused, so the body reader keeps none of
 * its upload, and answerRateLimit answers it 429 after the token's own refusals. What is counted is
 * a request of a known token, or of an address without one, whatever it asks for: 404/405 and
 * the route's rule come later, so a client past its limit gets 429s rather than free probes.
 * Not counted: a refused token (the failure budgets of authenticate.ts govern those), api_token in
 * the query, CORS preflights and the probes.
 */
export function limitRequests(
  limits: RequestLimits,
  defaults: { tokenRate: RateLimit | null; anonymousRate: RateLimit | null },
): ApiMiddleware {
  return async function limitRate(ctx, next) {
    const principal = ctx.state.principal;
    const rate = principal ? (principal.rateLimit ?? defaults.tokenRate) : defaults.anonymousRate;
    if (rate === null || ctx.state.refusal !== null) return next();
    const policy = principal ? 'token' : 'anonymous';
    const result = await limits.take(policy, rate, principal ? principal.tokenId : ctx.state.client);
    announce(ctx, policy, rate, result);
    if (!result.admitted)
      ctx.state.rateRefusal = tooManyRequests(
        principal
          ? `this token may make ${perWindow(rate)}`
          : `clients without a token may make ${perWindow(rate)} from one address`,
        result,
      );
    await next();
  };
}

/** The 429 limitRequests decided, answered once the token's own refusals have had their turn. */
export async function answerRateLimit(ctx: ApiContext, next: () => Promise<void>): Promise<void> {
  if (ctx.state.rateRefusal) throw ctx.state.rateRefusal;
  await next();
}

/** Counts a leaked-token report of the client's address under `limits.reportRate`; 429 beyond it. */
export function reportLimit(limits: RequestLimits, rate: RateLimit): (ctx: ApiContext) => Promise<void> {
  return async (ctx) => {
    const result = await limits.take('report', rate, ctx.state.client);
    announce(ctx, 'report', rate, result);
    if (!result.admitted) throw tooManyRequests(`one address may send ${rate.points} reports per ${rate.per}`, result);
  };
}
