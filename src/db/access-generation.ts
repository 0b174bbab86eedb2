// The access generation: a counter in `auth_state`, moved in the same transaction as every change
// that can withdraw or grant access. Running daemons compare it with the value their caches were
// built under; a transaction that moved it is announced once committed (./access-announce.ts).
import type { Knex } from 'knex';
import type { Db } from './dialect.js';

const movedIn = new WeakSet<Knex.Transaction>();

/** Call inside writeTransaction: running daemons are told once the transaction commits. */
export async function bumpAccessGeneration(trx: Knex.Transaction): Promise<void> {
  await trx('auth_state').where('id', 1).increment('generation', 1);
  movedIn.add(trx);
}

export const movedGeneration = (trx: Knex.Transaction): boolean => movedIn.has(trx);

export async function readAccessGeneration(db: Db | Knex.Transaction): Promise<string> {
  const row = await db('auth_state').where('id', 1).first<{ generation: number | string } | undefined>('generation');
  return String(row?.generation ?? 0);
}
