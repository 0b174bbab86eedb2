// Uses of an address-bound token from another address: audited once per token, client key and UTC day across
// all daemons (the first to insert the day's `token_address_refusals` row writes it), NOTED_PER_DAY keys at most.
import { writeTransaction } from '../db/write-transaction.js';
import { isAppError } from '../errors.js';
import { record } from './audit.js';
import type { Ctx } from './context.js';

export const FOREIGN_USE_ACTION = 'token.refuse-address';

/** Client keys a token's refusals are audited for in one UTC day; beyond them they are counted only. */
export const NOTED_PER_DAY = 10;

/** The token refused, as the audit log names it. */
export interface RefusedToken {
  tokenId: number;
  selector: string;
  username: string;
}

/** The audit log's actor for a use nobody can name: the client's address. */
export const addressActor = (address: string): string => `address:${address}`;

/** Records a refused use from `address` (client key `key`); true when this call wrote the day's entry. */
export async function recordForeignUse(
  ctx: Ctx,
  token: RefusedToken,
  address: string,
  key = address,
): Promise<boolean> {
  const at = ctx.clock.now();
  const day = at.toISOString().slice(0, 10);
  try {
    return await writeTransaction(ctx.db, async (trx) => {
      const row = { token_id: token.tokenId, address: key, day };
      if (await trx('token_address_refusals').where(row).first('day')) return false;
      const today = (await trx('token_address_refusals')
        .where({ token_id: token.tokenId, day })
        .count({ n: '*' })
        .first()) as { n: number | string };
      if (Number(today.n) >= NOTED_PER_DAY) return false;
      await trx('token_address_refusals').insert(row);
      await record(
        trx,
        at,
        addressActor(address),
        FOREIGN_USE_ACTION,
        `${token.selector} of ${token.username}: used from ${address}, outside its allow_from`,
      );
      return true;
    });
  } catch (err) {
    // Another daemon inserted the same row in between (PostgreSQL): its entry stands.
    if (isAppError(err) && err.kind === 'conflict') return false;
    throw err;
  }
}
