// Telling running daemons that a committed transaction changed who may do what: on PostgreSQL a
// NOTIFY queued in the transaction, then after the commit a wait for every live daemon's
// acknowledgement (./pg-lease.ts); on SQLite the signal file (./change-signal.ts).
import type { Knex } from 'knex';
import { movedGeneration, readAccessGeneration } from './access-generation.js';
import { signalChange } from './change-signal.js';
import { isPg, type Db } from './dialect.js';
import { notifyInTransaction, waitForAcks } from './pg-lease.js';

/** Runs last in a write transaction: the step to run after the commit, or null if none is due. */
export async function prepareAnnouncement(db: Db, trx: Knex.Transaction): Promise<(() => Promise<void>) | null> {
  if (!movedGeneration(trx)) return null;
  if (!isPg(db)) return () => signalChange(db);
  const generation = await readAccessGeneration(trx);
  await notifyInTransaction(trx, generation);
  return async () => {
    // Return only once every running daemon has adopted the change, so that "revoked" means
    // refused by all of them from their next request.
    const unconfirmed = await waitForAcks(db, generation);
    if (unconfirmed > 0) {
      process.emitWarning(
        `${unconfirmed} daemon(s) did not confirm the change in time; their leases have lapsed, ` +
          'so they check the database on every request until they are back',
      );
    }
  };
}

/**
 * After a change of access made outside writeTransaction (a down migration that revokes tokens):
 * tells running daemons as a committed revocation does.
 */
export async function announceAccessChange(db: Db): Promise<void> {
  if (!isPg(db)) return signalChange(db);
  const generation = await readAccessGeneration(db);
  await db.transaction((trx) => notifyInTransaction(trx, generation));
  const unconfirmed = await waitForAcks(db, generation);
  if (unconfirmed > 0)
    process.emitWarning(`${unconfirmed} daemon(s) did not confirm the change in time; their leases have lapsed`);
}
