// Where request counts for the rate limits are kept (rate-limiter-flexible, fixed windows): on
// PostgreSQL in the database's `rate_limits` table (migrations/20261203000100_rate_limits.js), so
// that the daemons sharing a database share every limit; on SQLite in the daemon's memory (one
// daemon serves a SQLite file as a rule; several on one file each count their own).
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { isPg, type Db } from './dialect.js';

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

/** Counts in this process only. */
export function memoryCounter(spec: CounterSpec): RateLimiterAbstract {
  return new RateLimiterMemory({ keyPrefix: spec.prefix, points: spec.points, duration: spec.seconds });
}

/**
 * The counter of one policy and rate. On PostgreSQL a request costs one upsert (a round trip on a
 * pooled connection), until the key is spent: from then until its window ends this daemon refuses
 * it from memory (`inMemoryBlockOnConsumed`), so a client hammering past its limit costs no query.
 */
export function requestCounter(db: Db, spec: CounterSpec): RateLimiterAbstract {
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
