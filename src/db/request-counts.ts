// Where request counts for the rate limits are kept (fixed windows): on PostgreSQL in the
// database's `rate_limits` table (migrations/20261203000100_rate_limits.js), shared by the daemons
// on it, each counting in memory against allotments it takes from the table (AllotmentCounter);
// on SQLite in the daemon's memory (one daemon serves a SQLite file as a rule; several on one
// file each count their own), in a table of at most MEMORY_KEYS keys per policy and rate.
import { LRUCache } from 'lru-cache';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { atMostKeys } from '../lru-bound.js';
import { isPg, type Db } from './dialect.js';

/** One request counted: its RateLimiterRes, thrown when the key is past its limit. */
export interface Counter {
  consume(key: string | number): Promise<RateLimiterRes>;
  /** Statements run on the database so far (none for a memory counter). */
  readonly queries?: number;
  /** Gives back to the database what this daemon holds and did not spend; stops its timers. */
  close?(): Promise<void>;
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

/** rate-limiter-flexible's contract, which the callers follow: a refusal rejects with its RateLimiterRes. */
function settle(admitted: boolean, left: number, msLeft: number): Promise<RateLimiterRes> {
  const res = new RateLimiterRes(left, msLeft);
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
  return admitted ? Promise.resolve(res) : Promise.reject(res);
}

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
    this.windows = new LRUCache(atMostKeys(maxKeys));
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
    return settle(window.points <= this.spec.points, left, window.endsAt - now);
  }
}

export function memoryCounter(spec: CounterSpec, maxKeys = MEMORY_KEYS): Counter {
  return new MemoryCounter(spec, maxKeys);
}

/** The share of a window's limit a daemon takes at a time (at least one request). */
export const sliceOf = (points: number): number => Math.max(1, Math.floor(points / 20));
/** An allotment unused this long is given back (and the table swept for it this often). */
const IDLE_MS = 10_000;
/** A key whose window the database had spent is refused from memory this long before asking again. */
const ASK_AGAIN_MS = 1_000;
/** Rows whose window ended this long ago are deleted, every CLEAR_EVERY sweeps (5 minutes). */
const CLEAR_AFTER_MS = 3_600_000;
const CLEAR_EVERY = 30;

interface Allotment {
  /** Requests taken from the database for this window and not admitted yet. */
  held: number;
  /** What the database had left of the window at the last take. */
  unclaimed: number;
  /** The window's end as the database wrote it, and by this process's clock (never later). */
  expire: string;
  endsAt: number;
  /** A spent window is refused from memory until then. */
  askAfter: number;
  usedAt: number;
  taking: Promise<void> | null;
}

/**
 * Takes a slice of the key's window (at most what the limit leaves) in one statement that locks
 * the row: the row counts what the daemons took, never more than the limit, and a window that
 * ended starts afresh. Answers nothing when the row appeared meanwhile (the caller asks again).
 */
const TAKE = `
WITH p AS (
  SELECT CAST(? AS text) AS key, CAST(? AS integer) AS slice, CAST(? AS integer) AS lim, CAST(? AS bigint) AS ms,
    floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now
),
held AS (SELECT points, expire FROM ${TABLE} WHERE key = (SELECT key FROM p) FOR UPDATE),
taken AS (
  UPDATE ${TABLE} r SET
    points = CASE WHEN r.expire <= p.now THEN least(p.slice, p.lim)
      ELSE greatest(r.points, least(p.lim, r.points + p.slice)) END,
    expire = CASE WHEN r.expire <= p.now THEN p.now + p.ms ELSE r.expire END
  FROM held, p WHERE r.key = p.key
  RETURNING r.points, r.expire, r.points - CASE WHEN held.expire <= p.now THEN 0 ELSE held.points END AS granted,
    (r.expire - p.now)::integer AS ms_left
),
made AS (
  INSERT INTO ${TABLE} (key, points, expire)
  SELECT p.key, least(p.slice, p.lim), p.now + p.ms FROM p WHERE NOT EXISTS (SELECT FROM held)
  ON CONFLICT (key) DO NOTHING
  RETURNING points, expire, points AS granted, (SELECT ms FROM p)::integer AS ms_left
)
SELECT points, expire::text, granted, ms_left FROM taken UNION ALL SELECT points, expire::text, granted, ms_left FROM made`;

interface Taken {
  points: number;
  expire: string;
  granted: number;
  ms_left: number;
}

/**
 * Counts in memory against allotments of the shared counts (docs/http-api.md, "Rate limits"): a
 * key's first request, and each one after its allotment is spent, takes sliceOf(limit) more from
 * the table; what is not spent goes back when the key is idle, evicted or at close(). The table
 * never grants past the limit, so the daemons together admit at most the limit in a window.
 */
class AllotmentCounter implements Counter {
  private readonly allotments: LRUCache<string, Allotment>;
  private readonly sweeper: NodeJS.Timeout;
  private sweeps = 0;
  queries = 0;

  constructor(
    private readonly db: Db,
    private readonly spec: CounterSpec,
  ) {
    this.allotments = new LRUCache({
      ...atMostKeys(MEMORY_KEYS),
      dispose: (a, key, reason) => void (reason === 'evict' && this.giveBack(key, a)),
    });
    this.sweeper = setInterval(() => void this.sweep(), IDLE_MS).unref();
  }

  async consume(key: string | number): Promise<RateLimiterRes> {
    const id = `${this.spec.prefix}:${key}`;
    for (;;) {
      const now = Date.now();
      let a = this.allotments.get(id);
      if (a && !a.taking && a.endsAt <= now) this.allotments.delete(id);
      else if (a) {
        a.usedAt = now;
        if (a.held > 0) return settle(true, --a.held + a.unclaimed, a.endsAt - now);
        if (a.taking) {
          await a.taking;
          continue;
        }
        if (now < a.askAfter) return settle(false, 0, a.endsAt - now);
      }
      if (!a || a.endsAt <= now) {
        a = { held: 0, unclaimed: 0, expire: '', endsAt: Infinity, askAfter: 0, usedAt: now, taking: null };
        this.allotments.set(id, a);
      }
      await this.take(id, a);
    }
  }

  /** One take for all the key's requests waiting; a failed one forgets the key and rejects them all. */
  private take(id: string, a: Allotment): Promise<void> {
    const asked = Date.now();
    a.taking = (async () => {
      try {
        let row: Taken | undefined;
        for (let tries = 0; !row && tries < 3; tries++) {
          this.queries++;
          const args = [id, sliceOf(this.spec.points), this.spec.points, this.spec.seconds * 1000];
          row = (await this.db.raw<{ rows: Taken[] }>(TAKE, args)).rows[0];
        }
        if (!row) throw new Error(`no rate limit count could be taken for ${this.spec.prefix}`);
        const now = Date.now();
        a.held += row.granted;
        a.unclaimed = this.spec.points - row.points;
        a.expire = row.expire;
        // From when it was asked: the window never outlasts the database's in this process.
        a.endsAt = asked + row.ms_left;
        a.askAfter = row.granted > 0 ? 0 : now + ASK_AGAIN_MS;
      } catch (err) {
        if (this.allotments.peek(id) === a) this.allotments.delete(id);
        throw err;
      } finally {
        a.taking = null;
      }
    })();
    return a.taking;
  }

  /** Gives the unspent part of an allotment back to its window (none once the window ended). */
  private async giveBack(id: string, a: Allotment): Promise<void> {
    const n = a.held;
    a.held = 0;
    if (n <= 0 || a.endsAt <= Date.now()) return;
    this.queries++;
    // A count that cannot be given back is lost for the window: fewer admitted, never more.
    await this.db(TABLE)
      .where({ key: id, expire: a.expire })
      .update({ points: this.db.raw('greatest(0, points - ?)', [n]) })
      .catch(() => undefined);
  }

  /** Gives back the allotments idle for IDLE_MS (the least recently used come first). */
  private async sweep(): Promise<void> {
    const idleSince = Date.now() - IDLE_MS;
    const idle: [string, Allotment][] = [];
    for (const entry of this.allotments.rentries()) {
      const [id, a] = entry as [string, Allotment];
      if (a.usedAt > idleSince) break;
      if (!a.taking) idle.push([id, a]);
    }
    for (const [id] of idle) this.allotments.delete(id);
    const given = idle.map(([id, a]) => this.giveBack(id, a));
    if (++this.sweeps % CLEAR_EVERY === 0) {
      this.queries++;
      given.push(
        this.db(TABLE)
          .where('expire', '<', Date.now() - CLEAR_AFTER_MS)
          .delete()
          .then(
            () => undefined,
            () => undefined,
          ),
      );
    }
    await Promise.all(given);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.allotments.entries()];
    this.allotments.clear();
    await Promise.all(all.map(([id, a]) => this.giveBack(id, a)));
  }
}

/** The counter of one policy and rate: allotments of the shared counts on PostgreSQL, memory on SQLite. */
export function requestCounter(db: Db, spec: CounterSpec): Counter {
  return countsShared(db) ? new AllotmentCounter(db, spec) : memoryCounter(spec);
}
