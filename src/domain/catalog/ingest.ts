// Ingest callbacks (SPEC §4.4): the ingest system reports what became of a received SIP.
// A submission leaves `received` exactly once. The guarded UPDATE (… AND status = 'received')
// makes that race-free on both dialects: of two concurrent callbacks, one changes the row and
// the other sees 0 affected rows and gets 409, whatever the isolation level.
import { hasControlChars } from './fields.js';
import { writeTransaction } from '../../db/connect.js';
import { conflict, invalid, notFound } from '../../errors.js';
import type { Ctx } from '../context.js';

export type SubmissionStatus = 'received' | 'confirmed' | 'failed';

export interface SubmissionView {
  id: number;
  status: SubmissionStatus;
  object_id: number;
}

export const MAX_REASON = 2000;
/** Row ids are 32-bit integers on PostgreSQL; a larger id cannot exist (and must not reach the query). */
const MAX_ROW_ID = 2_147_483_647;

async function settle(
  ctx: Ctx,
  id: number,
  to: Exclude<SubmissionStatus, 'received'>,
  objectStatus: 'ingested' | 'failed',
  reason: string | null,
): Promise<SubmissionView> {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ROW_ID) throw notFound(`no SIP submission ${id}`);
  const now = ctx.clock.now().toISOString();
  return writeTransaction(ctx.db, async (trx) => {
    const changes: Record<string, string | null> = { status: to, updated_at: now };
    if (to === 'failed') changes.reason = reason;
    const changed = await trx('sip_submissions').where({ id, status: 'received' }).update(changes);
    const row = (await trx('sip_submissions').where('id', id).first('status', 'object_id')) as
      | { status: SubmissionStatus; object_id: number | string }
      | undefined;
    if (!row) throw notFound(`no SIP submission ${id}`);
    if (Number(changed) === 0) throw conflict(`SIP submission ${id} is no longer received (it is ${row.status})`);
    await trx('objects').where('id', row.object_id).update({ status: objectStatus, updated_at: now });
    return { id, status: to, object_id: Number(row.object_id) };
  });
}

/** POST /api/ingest/confirm/{id}: submission `confirmed`, its object `ingested`. */
export function confirmSubmission(ctx: Ctx, id: number): Promise<SubmissionView> {
  return settle(ctx, id, 'confirmed', 'ingested', null);
}

/** POST /api/ingest/failed/{id}: submission `failed` (with the reason, if given), its object `failed`. */
export function failSubmission(ctx: Ctx, id: number, reason: string | null): Promise<SubmissionView> {
  return settle(ctx, id, 'failed', 'failed', reason);
}

/**
 * The body of a callback. `failed` takes an optional `reason` (string, at most 2000 characters;
 * null or "" count as none); `confirm` takes no fields. Unknown fields are refused so that a
 * misspelt `reason` is not silently dropped.
 */
export function parseCallbackBody(input: Record<string, unknown>, allowReason: boolean): string | null {
  const problems = new Map<string, string>();
  for (const key of Object.keys(input).slice(0, 50)) {
    if (!(allowReason && key === 'reason')) problems.set(key, 'unknown field');
  }
  let reason: string | null = null;
  if (allowReason && Object.hasOwn(input, 'reason')) {
    const value = input.reason;
    if (typeof value === 'string') {
      if ([...value.slice(0, 4 * MAX_REASON)].length > MAX_REASON) problems.set('reason', `must be at most ${MAX_REASON} characters`);
      else if (hasControlChars(value)) problems.set('reason', 'must not contain control characters');
      else reason = value === '' ? null : value;
    } else if (value !== null) {
      problems.set('reason', 'must be a string');
    }
  }
  if (problems.size > 0) {
    throw invalid(`invalid callback body: ${[...problems.keys()].slice(0, 10).join(', ')}`, Object.fromEntries(problems));
  }
  return reason;
}
