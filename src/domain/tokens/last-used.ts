// "Last used" (docs/cli.md#tokens): the first use of a token, and any use more than 60 seconds after the
// recorded one, reaches the database within 2 seconds; never a write per request. Uses are
// collected in memory and written by a timer once a second. The UPDATE itself only moves the
// value forward by more than 60 seconds, so several daemons sharing a database coalesce too.
// The addresses of uses follow the same rule per address (a new one at the next flush): one row
// per token and address, whichever daemons saw it, at most KEPT_ADDRESSES per token.
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';
import { isForeignKeyViolation, type Db } from '../../db/dialect.js';

const LAST_USED_RESOLUTION_MS = 60_000;
const LAST_USED_FLUSH_MS = 1_000;
/** Tokens whose uses one transaction writes. */
const FLUSH_BATCH = 100;
/** Address rows kept per token (token show lists the newest five). */
export const KEPT_ADDRESSES = 20;
/** Addresses remembered per token in memory; past it the token's are forgotten (a few extra writes). */
const ADDRESSES_PER_TOKEN = 64;
/** The address column's width; longer text (never an IP address) is cut. */
const ADDRESS_LENGTH = 64;

interface Seen {
  /** The last_used value this process believes is stored or about to be (ms). */
  lastUsed: number;
  /** Per address: when this process last recorded a use from it (ms). */
  addresses: Map<string, number>;
}

interface PendingAddress {
  at: number;
  /** Not seen for this token by this process before: the token's rows are pruned after it. */
  fresh: boolean;
}

export class LastUsedRecorder {
  /**
   * Tokens and their addresses as this process recorded them, bounded (lru-cache): each token
   * counts one and one per address, `maxTracked` in all; the least recently used token goes
   * first (worst case one extra write per token and address).
   */
  private readonly known: LRUCache<number, Seen>;
  private readonly pending = new Map<number, string>();
  private readonly pendingAddresses = new Map<number, Map<string, PendingAddress>>();
  /** The flush running now, or the last one: the next waits for it (flush()). */
  private flushing: Promise<void> = Promise.resolve();
  /** Flushes started and not ended: the timer adds none while one runs (a stalled database). */
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  /** UPDATE statements of last_used_at issued (for tests and the benchmark). */
  writes = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    maxTracked = 100_000,
  ) {
    this.known = new LRUCache({ maxSize: maxTracked, sizeCalculation: (seen) => 1 + seen.addresses.size });
  }

  start(): void {
    this.timer ??= setInterval(() => {
      if (this.running === 0) void this.flush().catch(() => undefined);
    }, LAST_USED_FLUSH_MS);
    this.timer.unref();
  }

  /**
   * Called on every authenticated request, `address` as the request pipeline judged it. Answers
   * the last use the database holds once pending writes are flushed (ms; -Infinity: never used).
   */
  touch(tokenId: number, stored: string | null, address: string, now = this.clock.now().getTime()): number {
    let seen = this.known.get(tokenId);
    if (seen === undefined) {
      seen = { lastUsed: storedLastUsed(stored), addresses: new Map() };
      this.known.set(tokenId, seen);
    }
    if (now - seen.lastUsed > LAST_USED_RESOLUTION_MS) {
      seen.lastUsed = now;
      this.pending.set(tokenId, new Date(now).toISOString());
    }
    if (address !== '') this.seenFrom(tokenId, seen, address, now);
    return seen.lastUsed;
  }

  private seenFrom(tokenId: number, seen: Seen, address: string, now: number): void {
    const last = seen.addresses.get(address);
    if (last !== undefined && now - last <= LAST_USED_RESOLUTION_MS) return;
    if (last === undefined && seen.addresses.size >= ADDRESSES_PER_TOKEN) seen.addresses.clear();
    seen.addresses.set(address, now);
    // A new address makes the token's entry larger: put it again, so the bound counts it
    // (lru-cache sizes an entry again only when `set` is given another value than the stored one).
    if (last === undefined) {
      this.known.delete(tokenId);
      this.known.set(tokenId, seen);
    }
    const forToken = this.pendingAddresses.get(tokenId) ?? new Map<string, PendingAddress>();
    this.pendingAddresses.set(tokenId, forToken);
    const fresh = last === undefined || forToken.get(address)?.fresh === true;
    forToken.set(address, { at: now, fresh });
  }

  /**
   * Resolves once every use recorded before the call is written (stop() relies on it before the
   * database closes): a flush already running, the timer's, holds uses taken from pending.
   */
  flush(): Promise<void> {
    this.running++;
    const run = this.flushing.then(() => this.writePending()).finally(() => this.running--);
    this.flushing = run.catch(() => undefined); // a failed write is the caller's; the next flush still runs
    return run;
  }

  /**
   * The uses taken from pending, FLUSH_BATCH tokens at a time in one transaction of three
   * statements (last uses, addresses, pruning): a restart's first uses of thousands of tokens
   * come a hundred a second, and a statement and a commit each would cost the daemon more than
   * the requests themselves (bench/RESULTS.md, restart storm). A batch that fails (a token
   * deleted meanwhile) is written again statement by statement, where such a token is skipped.
   */
  private async writePending(): Promise<void> {
    const uses = [...this.pending];
    this.pending.clear();
    const addressUses = [...this.pendingAddresses];
    this.pendingAddresses.clear();
    this.writes += uses.length; // one UPDATE each (in a batch's one statement, or on their own)
    for (let i = 0; i < Math.max(uses.length, addressUses.length); i += FLUSH_BATCH) {
      const batch = { uses: uses.slice(i, i + FLUSH_BATCH), addresses: addressUses.slice(i, i + FLUSH_BATCH) };
      try {
        await this.db.transaction((trx) => writeTogether(trx, batch));
      } catch {
        await this.writeOneByOne(batch);
      }
    }
  }

  private async writeOneByOne(batch: Batch): Promise<void> {
    for (const [tokenId, at] of batch.uses)
      await this.db('tokens')
        .where('id', tokenId)
        .where((q) => {
          q.whereNull('last_used_at').orWhere('last_used_at', '<', notBefore(at));
        })
        .update({ last_used_at: at });
    for (const [tokenId, addresses] of batch.addresses) await this.writeAddresses(tokenId, addresses);
  }

  private async writeAddresses(tokenId: number, addresses: Map<string, PendingAddress>): Promise<void> {
    let fresh = false;
    for (const [address, use] of addresses) {
      const at = new Date(use.at).toISOString();
      try {
        await this.db('token_addresses')
          .insert({ token_id: tokenId, address: address.slice(0, ADDRESS_LENGTH), first_seen_at: at, last_seen_at: at })
          .onConflict(['token_id', 'address'])
          .merge({ last_seen_at: at })
          .where('token_addresses.last_seen_at', '<', at);
      } catch (err) {
        // The token was deleted (pruned, its account deleted) since its use: nothing to record.
        if (isForeignKeyViolation(err)) return;
        throw err;
      }
      fresh ||= use.fresh;
    }
    if (fresh) await prune(this.db, [tokenId]);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

type Batch = { uses: [number, string][]; addresses: [number, Map<string, PendingAddress>][] };

/** The stored last use below which `at` is written (the resolution's rule). */
const notBefore = (at: string) => new Date(Date.parse(at) - LAST_USED_RESOLUTION_MS).toISOString();

/** SQLite answers at most 500 rows of a multi-row INSERT (knex writes it as a compound SELECT). */
const ROWS_PER_INSERT = 400;

/** A batch in three statements (the transaction `trx`); the same rules as writeOneByOne's. */
async function writeTogether(trx: Knex.Transaction, batch: Batch): Promise<void> {
  if (batch.uses.length > 0) {
    const byToken = (value: (at: string) => string) =>
      trx.raw(
        `CASE id ${batch.uses.map(() => 'WHEN ? THEN ?').join(' ')} END`,
        batch.uses.flatMap(([id, at]) => [id, value(at)]),
      );
    await trx('tokens')
      .whereIn(
        'id',
        batch.uses.map(([id]) => id),
      )
      .where((q) => {
        q.whereNull('last_used_at').orWhere('last_used_at', '<', byToken(notBefore));
      })
      .update({ last_used_at: byToken((at) => at) });
  }
  const rows = batch.addresses.flatMap(([tokenId, addresses]) =>
    [...addresses].map(([address, use]) => {
      const at = new Date(use.at).toISOString();
      return { token_id: tokenId, address: address.slice(0, ADDRESS_LENGTH), first_seen_at: at, last_seen_at: at };
    }),
  );
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
    await trx('token_addresses')
      .insert(rows.slice(i, i + ROWS_PER_INSERT))
      .onConflict(['token_id', 'address'])
      .merge({ last_seen_at: trx.raw('excluded.last_seen_at') })
      .where('token_addresses.last_seen_at', '<', trx.raw('excluded.last_seen_at'));
  const fresh = batch.addresses.filter(([, addresses]) => [...addresses.values()].some((use) => use.fresh));
  if (fresh.length > 0)
    await prune(
      trx,
      fresh.map(([tokenId]) => tokenId),
    );
}

/** After a new address: each of `tokenIds` keeps its KEPT_ADDRESSES most recently seen. */
async function prune(db: Knex, tokenIds: number[]): Promise<void> {
  const ranked = db('token_addresses')
    .select(
      'token_id',
      'address',
      db.raw('row_number() over (partition by token_id order by last_seen_at desc, address) as n'),
    )
    .whereIn('token_id', tokenIds);
  await db('token_addresses')
    .whereIn('token_id', tokenIds)
    .whereIn(
      ['token_id', 'address'],
      db.from(ranked.as('ranked')).select('token_id', 'address').where('n', '>', KEPT_ADDRESSES),
    )
    .delete();
}

/** A last_used_at as stored, in ms (-Infinity: never used). */
export function storedLastUsed(stored: string | null): number {
  return stored ? Date.parse(stored) : Number.NEGATIVE_INFINITY;
}
