// Where request counts for the rate limits are kept (fixed windows): on PostgreSQL in the
// database's `rate_limits` table (migrations/20261203000100_rate_limits.js, through
// rate-limiter-flexible), so that the daemons sharing a database share every limit; on SQLite in
// the daemon's memory (one daemon serves a SQLite file as a rule; several on one file each count
// their own), in a table of at most MEMORY_KEYS keys per policy and rate.
import { LRUCache } from 'lru-cache';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { isPg, type Db } from './dialect.js';

/** One request counted: its RateLimiterRes, thrown when the key is past its limit. */
export interface Counter {
  consume(key: string | number): Promise<RateLimiterRes>;
}

/** Keys one memory counter holds: past it, the key idle longest is forgotten (its window starts afresh). */
export const MEMORY_KEYS = 100_000;

export interface CounterSpec {
  /** Keeps the counts of one policy and rate apart from every other's (`token:600/hour`). */
  prefix: string;
  /** Requests admitted per window. */
  points: number;
  /** The window, in seconds. */
  seconds: number;
}

/** The table of the shared counts; made by a migration, never by the library at run time. */
const TABLE = 'rate_limits';

/** Whether the counts are the database's (shared by every daemon on it) rather than this daemon's. */
export const countsShared = (db: Db): boolean => isPg(db);

interface Window {
  points: number;
  endsAt: number;
}

/** Counts in this process only, each key's window starting with its first request. */
class MemoryCounter implements Counter {
  private readonly windows: LRUCache<string, Window>;

  constructor(
    private readonly spec: CounterSpec,
    maxKeys: number,
  ) {
    this.windows = new LRUCache({ max: maxKeys });
  }

  consume(key: string | number): Promise<RateLimiterRes> {
    const now = Date.now();
    let window = this.windows.get(String(key));
    if (!window || window.endsAt <= now) {
      window = { points: 0, endsAt: now + this.spec.seconds * 1000 };
      this.windows.set(String(key), window);
    }
    window.points++;
    const left = Math.max(0, this.spec.points - window.points);
    const res = new RateLimiterRes(left, window.endsAt - now, window.points, window.points === 1);
    // rate-limiter-flexible's contract, which the callers follow: a refusal rejects with its RateLimiterRes.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    return window.points > this.spec.points ? Promise.reject(res) : Promise.resolve(res);
  }
}

export function memoryCounter(spec: CounterSpec, maxKeys = MEMORY_KEYS): Counter {
  return new MemoryCounter(spec, maxKeys);
}

/**
 * The counter of one policy and rate. On PostgreSQL a request costs one upsert (a round trip on a
 * pooled connection), until the key is spent: from then until its window ends this daemon refuses
 * it from memory (`inMemoryBlockOnConsumed`), so a client hammering past its limit costs no query.
 */
export function requestCounter(db: Db, spec: CounterSpec): Counter {
  if (!countsShared(db)) return memoryCounter(spec);
  return new RateLimiterPostgres({
    storeClient: db,
    storeType: 'knex',
    tableName: TABLE,
    tableCreated: true,
    keyPrefix: spec.prefix,
    points: spec.points,
    duration: spec.seconds,
    inMemoryBlockOnConsumed: spec.points,
  });
}
