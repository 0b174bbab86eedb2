// Writes that change who may do what: each moves the access generation in its transaction, so every daemon drops
// what it cached under the old one. Only these functions call bumpAccessGeneration (.dependency-cruiser.cjs).
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
