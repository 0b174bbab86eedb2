// The read-one / create / change steps that actors and places share: one row by id (404 when
// missing), a checked insert, and a partial update that re-reads the stored record.
import type { Knex } from 'knex';
import { writeTransaction } from '../../db/connect.js';
import { invalid, notFound } from '../../errors.js';
import type { Ctx } from '../context.js';
import type { Read } from './fields.js';

/** One catalogue table as these steps see it. */
export interface RecordTable<T> {
  table: string;
  /** The word in "no actor with id 3". */
  what: string;
  columns: readonly string[];
  toRecord(row: Record<string, unknown>): T;
}

export async function findRecord<T>(db: Knex, t: RecordTable<T>, id: number): Promise<T | undefined> {
  const row = (await db(t.table).where('id', id).first(...t.columns)) as Record<string, unknown> | undefined;
  return row ? t.toRecord(row) : undefined;
}

export async function getRecord<T>(ctx: Pick<Ctx, 'db'>, t: RecordTable<T>, id: number): Promise<T> {
  const record = await findRecord(ctx.db, t, id);
  if (!record) throw notFound(`no ${t.what} with id ${id}`);
  return record;
}

/** Inserts checked values (422 with `fields` when the check failed) and answers the stored record. */
export async function createRecord<T, V>(
  ctx: Ctx,
  t: RecordTable<T>,
  checked: Read<V>,
  insert: (trx: Knex, values: V, at: Date) => Promise<number>,
): Promise<T> {
  if (!checked.ok) throw invalid('validation failed', checked.errors);
  return writeTransaction(ctx.db, async (trx) => {
    const id = await insert(trx, checked.values, ctx.clock.now());
    return (await findRecord(trx, t, id)) as T;
  });
}

/**
 * Changes the given columns of one record (404 when missing). `changes` may depend on the stored
 * record (a name that follows its label). `checkMerged` sees the stored record first, for rules
 * about the record as a whole (a date range, say).
 */
export async function updateRecord<T>(
  ctx: Ctx,
  t: RecordTable<T>,
  id: number,
  changes: Record<string, unknown> | ((current: T) => Record<string, unknown>),
  checkMerged?: (current: T) => Read<unknown>,
): Promise<T> {
  return writeTransaction(ctx.db, async (trx) => {
    const current = await findRecord(trx, t, id);
    if (!current) throw notFound(`no ${t.what} with id ${id}`);
    const columns = typeof changes === 'function' ? changes(current) : changes;
    if (Object.keys(columns).length === 0) return current;
    const merged = checkMerged?.(current);
    if (merged && !merged.ok) throw invalid('validation failed', merged.errors);
    await trx(t.table)
      .where('id', id)
      .update({ ...columns, updated_at: ctx.clock.now().toISOString() });
    return (await findRecord(trx, t, id)) as T;
  });
}
