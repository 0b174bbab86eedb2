// Every write that changes who may do what, and the one place that knows the rule that goes with
// it: the access generation moves in the same transaction (db/access-generation.ts), so that
// writeTransaction announces the change to every running daemon once it commits, and each drops
// what it had cached under the old generation (verified tokens re-read their row, settings are
// read again). A token's restrictions (its scopes, addresses and rate) narrow its rights, so
// changing them is such a write too. Callers change rights only through these functions; none of them calls
// bumpAccessGeneration itself (.dependency-cruiser.cjs refuses the import elsewhere).
//
// Writes that grant nothing a daemon could have cached stay outside: creating an account or a
// token (a new value is in no cache), pruning expired or revoked tokens and replacing expired
// handoff tokens (already refused by the row every daemon holds), token_max_days (judged by the
// CLI when a token is made, never per request).
import type { Knex } from 'knex';
import { bumpAccessGeneration } from '../db/access-generation.js';
import type { Role } from './roles.js';
import type { RestrictionColumns } from './tokens/restrictions.js';
import { SETTING_NAMES } from './setting-names.js';

/** Revokes token `tokenId` if it is not revoked yet; false when it already was (nothing moved). */
export async function revokeTokenRow(trx: Knex.Transaction, tokenId: number, at: string): Promise<boolean> {
  const revoked = await trx('tokens').where('id', tokenId).whereNull('revoked_at').update({ revoked_at: at });
  if (revoked === 0) return false;
  await bumpAccessGeneration(trx);
  return true;
}

/** Replaces token `tokenId`'s scopes, addresses and rate (token update); every daemon re-reads it. */
export async function setTokenRestrictions(
  trx: Knex.Transaction,
  tokenId: number,
  columns: RestrictionColumns,
): Promise<void> {
  await trx('tokens').where('id', tokenId).update(columns);
  await bumpAccessGeneration(trx);
}

export async function setAccountRole(trx: Knex.Transaction, accountId: number, role: Role, at: string): Promise<void> {
  await trx('accounts').where('id', accountId).update({ role, updated_at: at });
  await bumpAccessGeneration(trx);
}

/** Deletes an account with its tokens (and, by ON DELETE CASCADE, the addresses they were used from). */
export async function deleteAccountRow(trx: Knex.Transaction, accountId: number): Promise<void> {
  await trx('tokens').where('account_id', accountId).delete();
  await trx('accounts').where('id', accountId).delete();
  await bumpAccessGeneration(trx);
}

/** Stores setting `key`; the switches that decide access (SETTING_NAMES) move the generation. */
export async function storeSetting(trx: Knex.Transaction, key: string, value: string): Promise<void> {
  // One statement: with update-then-insert, two processes setting the same absent key both found
  // nothing to update, and the second insert failed on the key (seen on PostgreSQL).
  await trx('settings').insert({ key, value }).onConflict('key').merge(['value']);
  if ((SETTING_NAMES as readonly string[]).includes(key)) await bumpAccessGeneration(trx);
}
