// A token bound to addresses (`allow_from`) presented from another one: what its owner most
// needs to learn, since it usually means the value was taken elsewhere. Each such use is refused
// (http/allow-from.ts); it is written to the audit log once per token, address and UTC day for
// the whole installation, however many daemons refuse it, and however often: the first daemon to
// insert the day's row in `token_address_refusals` writes the entry, in the same transaction.
import { writeTransaction } from '../db/write-transaction.js';
import { isAppError } from '../errors.js';
import { record } from './audit.js';
import type { Ctx } from './context.js';

export const FOREIGN_USE_ACTION = 'token.refuse-address';

/** The token refused, as the audit log names it. */
export interface RefusedToken {
  tokenId: number;
  selector: string;
  username: string;
}

/** The audit log's actor for a use nobody can name: the client's address. */
export const addressActor = (address: string): string => `address:${address}`;

/**
 * Records a refused use from `address`; true when this call wrote the day's entry, false when
 * it was there already (or another daemon wrote it at the same moment).
 */
export async function recordForeignUse(ctx: Ctx, token: RefusedToken, address: string): Promise<boolean> {
  const at = ctx.clock.now();
  const day = at.toISOString().slice(0, 10);
  try {
    return await writeTransaction(ctx.db, async (trx) => {
      const key = { token_id: token.tokenId, address, day };
      if (await trx('token_address_refusals').where(key).first('day')) return false;
      await trx('token_address_refusals').insert(key);
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
