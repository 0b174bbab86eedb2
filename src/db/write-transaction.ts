// Every write goes through writeTransaction: it takes SQLite's write lock up front, turns a
// unique-index refusal into a conflict, and announces access changes once they are committed.
import type { Knex } from 'knex';
import { conflict } from '../errors.js';
import { prepareAnnouncement } from './access-announce.js';
import { isSqlite, isUniqueViolation, type Db } from './dialect.js';

/**
 * On SQLite a transaction that reads first and writes later can fail at once with SQLITE_BUSY
 * when another process committed in between (the busy timeout does not apply to that upgrade).
 * Taking the write lock with the first statement makes SQLite wait on the busy timeout instead.
 */
async function takeSqliteWriteLock(trx: Knex.Transaction): Promise<void> {
  await trx('auth_state').where('id', -1).update({ generation: 0 }); // matches no row
}

/** A write transaction; see above. */
export async function writeTransaction<T>(db: Db, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const { value, afterCommit } = await db
    .transaction(async (trx) => {
      if (isSqlite(db)) await takeSqliteWriteLock(trx);
      const value = await work(trx);
      return { value, afterCommit: await prepareAnnouncement(db, trx) };
    })
    .catch((err: unknown) => {
      // Checks run before the write; a unique index refusing it means another process wrote
      // the same name or id in between. Nothing was changed.
      if (isUniqueViolation(err)) {
        throw conflict('a concurrent change conflicts with this one; nothing was changed, try again');
      }
      throw err;
    });
  await afterCommit?.();
  return value;
}
