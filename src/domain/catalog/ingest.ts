// Ingest callbacks (docs/http-api.md): a submission leaves `received` once; the guarded UPDATE makes that
// race-free, and the loser of two callbacks gets 409.
import { hasControlChars } from './fields.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { MAX_ROW_ID } from '../../db/row-id.js';
import { conflict, notFound } from '../../errors.js';
import type { Ctx } from '../context.js';
import { parseKnownFields, v } from '../../validation.js';

export type SubmissionStatus = 'received' | 'confirmed' | 'failed';

export interface SubmissionView {
  id: number;
  status: SubmissionStatus;
  object_id: number;
}

export const MAX_REASON = 2000;

/** The object's status once its submission is settled. */
const OBJECT_STATUS = { confirmed: 'ingested', failed: 'failed' } as const;

async function settle(ctx: Ctx, id: number, to: 'confirmed' | 'failed', reason: string | null) {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ROW_ID) throw notFound(`no SIP submission ${id}`);
  const now = ctx.clock.now().toISOString();
  return writeTransaction(ctx.db, async (trx) => {
    const changes: Record<string, string | null> = { status: to, updated_at: now };
    if (to === 'failed') changes.reason = reason;
    const changed = await trx('sip_submissions').where({ id, status: 'received' }).update(changes);
    const row = await trx('sip_submissions')
      .where('id', id)
      .first<{ status: SubmissionStatus; object_id: number | string } | undefined>('status', 'object_id');
    if (!row) throw notFound(`no SIP submission ${id}`);
    if (Number(changed) === 0) throw conflict(`SIP submission ${id} is no longer received (it is ${row.status})`);
    await trx('objects').where('id', row.object_id).update({ status: OBJECT_STATUS[to], updated_at: now });
    return { id, status: to, object_id: Number(row.object_id) };
  });
}

/** POST /api/ingest/confirm/{id}: submission `confirmed`, its object `ingested`. */
export function confirmSubmission(ctx: Ctx, id: number): Promise<SubmissionView> {
  return settle(ctx, id, 'confirmed', null);
}

/** POST /api/ingest/failed/{id}: submission `failed` (with the reason, if given), its object `failed`. */
export function failSubmission(ctx: Ctx, id: number, reason: string | null): Promise<SubmissionView> {
  return settle(ctx, id, 'failed', reason);
}

const reasonSchema = v.nullable(
  v.pipe(
    v.string('must be a string'),
    // Counted on a bounded prefix: a huge value is refused without walking all of it.
    v.check((s) => [...s.slice(0, 4 * MAX_REASON)].length <= MAX_REASON, `must be at most ${MAX_REASON} characters`),
    v.check((s) => !hasControlChars(s), 'must not contain control characters'),
    v.metadata({ maxLength: MAX_REASON }),
  ),
);

export const CALLBACK_BODIES = {
  confirm: v.object({}),
  failed: v.object({
    reason: v.pipe(
      v.optional(reasonSchema, null),
      v.transform((reason) => reason || null),
    ),
  }),
};

/** `failed` may give a `reason`; unknown fields are refused, so a misspelt `reason` is not dropped. */
export function parseCallbackBody(input: Record<string, unknown>, allowReason: boolean): string | null {
  const schema = allowReason ? CALLBACK_BODIES.failed : CALLBACK_BODIES.confirm;
  const body = parseKnownFields(schema, input, 'callback body');
  return 'reason' in body ? body.reason : null;
}
