// Every write goes through writeTransaction: it takes SQLite's write lock up front, turns a
// unique-index refusal into a conflict, and announces access changes once they are committed.
import type { Knex } from 'knex';
import { conflict } from '../errors.js';
import { prepareAnnouncement } from './access-announce.js';
import { isSqlite, isUniqueViolation, type Db } from './dialect.js';

export async function writeTransaction<T>(db: Db, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const { value, afterCommit } = await db
    .transaction(async (trx) => {
      // SQLite: write first, so a transaction waits out the busy timeout instead of failing with SQLITE_BUSY
      // when it upgrades from reading to writing after another process committed.
      if (isSqlite(db)) await trx('auth_state').where('id', -1).update({ generation: 0 });
      const value = await work(trx);
      return { value, afterCommit: await prepareAnnouncement(db, trx) };
    })
    .catch((err: unknown) => {
      // Checks run before the write; a unique index refusing it means another process wrote
      // the same name or id in between. Nothing was changed.
      throw isUniqueViolation(err)
        ? conflict('a concurrent change conflicts with this one; nothing was changed, try again')
        : err;
    });
  await afterCommit?.();
  return value;
}
