// What a `catalog load` has written, for its skip of records already there (load.ts). A table
// that was empty when the load first wrote to it, and that nobody else writes to until the load
// commits, holds only the load's own rows: an entry whose identity the load never wrote is new
// without asking the database. The identities written are kept in a Bloom filter (fixed size, no
// false "new"); only an entry it may have seen is looked up, as every entry is otherwise.
import type { Knex } from 'knex';
import { isPg } from '../../db/dialect.js';

/** Bits of the filter: 8 MB; at a million identities about 1 in 100,000 is looked up for nothing. */
const BITS = 2 ** 26;
const PROBES = 4;
/** How long the load waits for the API's writes under way before it takes the table (ms). */
const LOCK_WAIT_MS = 2000;

/** Identities written by this load to a table it alone writes to. */
export class WrittenSet {
  private readonly bits = new Int32Array(BITS / 32);

  /** Two 32-bit hashes of the key (FNV-1a, and a multiply-xorshift one), combined for each probe. */
  private probes(key: string): number[] {
    let a = 0x811c9dc5;
    let b = 0x9747b28c;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    b |= 1;
    const out: number[] = [];
    for (let i = 0; i < PROBES; i++) out.push((a + Math.imul(i, b)) & (BITS - 1));
    return out;
  }

  add(key: string): void {
    for (const p of this.probes(key)) this.bits[p >>> 5]! |= 1 << (p & 31);
  }

  /** False: the load wrote no record of this identity. True: it may have. */
  mayHave(key: string): boolean {
    for (const p of this.probes(key)) if ((this.bits[p >>> 5]! & (1 << (p & 31))) === 0) return false;
    return true;
  }
}

/**
 * Before the load's first write to `table`: a WrittenSet when the table is empty and stays the
 * load's alone until it commits, else null (every entry is looked up). On SQLite the write
 * transaction holds the database already. On PostgreSQL the table is locked against other writers
 * (SHARE ROW EXCLUSIVE: the API's reads go on, its writes to the table wait for the commit); when
 * writes under way hold it off for longer than LOCK_WAIT_MS, the load does without it.
 */
export async function writtenSetFor(trx: Knex.Transaction, table: string): Promise<WrittenSet | null> {
  const empty = async () => !(await trx(table).first('id'));
  if (!isPg(trx)) return (await empty()) ? new WrittenSet() : null;
  if (!(await empty())) return null;
  // Found not empty after all, the table is left to other writers as before.
  return (await underLock(trx, table, 'SHARE ROW EXCLUSIVE', empty)) ? new WrittenSet() : null;
}

/**
 * Takes `mode` on `table` within LOCK_WAIT_MS and runs `then` under it: true when both did. A lock
 * taken in a savepoint goes with the savepoint's rollback, so on false nothing is held or changed.
 */
async function underLock(
  trx: Knex.Transaction,
  table: string,
  mode: string,
  then: () => Promise<boolean>,
): Promise<boolean> {
  await trx.raw('SAVEPOINT load_lock');
  try {
    const { rows } = await trx.raw<{ rows: { was: string }[] }>(
      `SELECT current_setting('lock_timeout') AS was, set_config('lock_timeout', ?, true)`,
      [`${LOCK_WAIT_MS}ms`],
    );
    await trx.raw(`LOCK TABLE ?? IN ${mode} MODE`, [table]);
    await trx.raw(`SELECT set_config('lock_timeout', ?, true)`, [rows[0]!.was]);
    if (await then()) {
      await trx.raw('RELEASE SAVEPOINT load_lock');
      return true;
    }
  } catch (err) {
    // 55P03 lock_not_available: other work holds the table; the rollback undoes the setting too.
    if ((err as { code?: unknown }).code !== '55P03') throw err;
  }
  await trx.raw('ROLLBACK TO SAVEPOINT load_lock');
  return false;
}
