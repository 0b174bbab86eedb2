// The authorisation generation: a counter moved in the same transaction as every change that
// can withdraw or grant access (revocation, role change, account deletion, settings). Running
// daemons compare it with the value their caches were built under.
import type { Knex } from 'knex';
import { markAccessChange, type Db } from '../db/connect.js';

/** Call inside writeTransaction: running daemons are signalled once the transaction commits. */
export async function bumpGeneration(trx: Knex.Transaction): Promise<void> {
  await trx('auth_state').where('id', 1).increment('generation', 1);
  markAccessChange(trx);
}

export async function readGeneration(db: Db): Promise<string> {
  const row = (await db('auth_state').where('id', 1).first('generation')) as { generation: number | string } | undefined;
  return String(row?.generation ?? 0);
}
