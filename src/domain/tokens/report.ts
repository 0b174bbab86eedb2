// A leaked token reported by anyone who found its value (POST /api/tokens/revoke, as GitHub's
// credential revocation): every value that is a live token of this installation is revoked at
// once, through access-changes.ts, so every daemon refuses it from its next request, and is
// audited as reported, with the reporter's address (never the value). What was found is not
// answered (the HTTP API says the same whatever it was), so the caller learns nothing.
import { writeTransaction } from '../../db/write-transaction.js';
import { revokeTokenRow } from '../access-changes.js';
import { record } from '../audit.js';
import type { Ctx } from '../context.js';
import { parse } from './format.js';
import type { AuthRow } from './verified-cache.js';

/** Values one report may carry. */
export const MAX_REPORTED_VALUES = 1000;

/** A token a report revoked, for the log: its public id and account, never its value. */
export interface ReportedToken {
  selector: string;
  username: string;
}

/**
 * The values that could be tokens of an installation (prefix, length, alphabet and checksum, or a
 * legacy value's form), each once: only these cost anything to check (a row lookup, maybe a KDF
 * run), and only a report holding one is counted against its address's limit.
 */
export function wellFormed(values: readonly string[]): string[] {
  return [...new Set(values)].filter((value) => parse(value) !== null);
}

/** The live tokens among some values (Authenticator.liveRows). */
export type LiveCheck = (values: readonly string[]) => Promise<AuthRow[]>;

/**
 * Revokes the live tokens among `values`, reported from `reporter` (a client address): every one,
 * whatever else the report holds.
 */
export async function revokeReported(
  ctx: Ctx,
  isLive: LiveCheck,
  values: readonly string[],
  reporter: string,
): Promise<ReportedToken[]> {
  const found = await isLive(values);
  if (found.length === 0) return [];
  const at = ctx.clock.now();
  return writeTransaction(ctx.db, async (trx) => {
    const revoked: ReportedToken[] = [];
    for (const row of found) {
      // Revoked meanwhile (by an admin, or by another report): nothing to do, nothing to audit.
      if (!(await revokeTokenRow(trx, row.id, at.toISOString()))) continue;
      await record(trx, at, `report from ${reporter}`, 'token.reported', `${row.selector} of ${row.username}`);
      revoked.push({ selector: row.selector, username: row.username });
    }
    return revoked;
  });
}
