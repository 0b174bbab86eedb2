// Storage of a catalogue resource, derived from its description (resources/).
import type { Knex } from 'knex';
import { writeTransaction } from '../../db/write-transaction.js';
import { insertedId } from '../../db/row-id.js';
import { invalid, notFound } from '../../errors.js';
import type { Ctx } from '../context.js';
import type { Read } from './record-schema.js';
import type { Column } from './resources/columns.js';

/** The part of a description storage needs. */
export interface Stored<R> {
  table: string;
  what: string;
  columns: { [K in keyof R]: Column<R[K]> };
  columnNames: readonly string[];
  insertDefaults?: Record<string, unknown>;
}

type Row = Record<string, unknown>;

const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/;

const readers = new WeakMap<object, (row: Row) => unknown>();

/**
 * Reads a row into a record of `t` with a function made once per description, `(row) => ({ id:
 * read[0](row.id), … })`, so every record has one shape from the start, which a loop's keyed
 * stores do not give (bench/RESULTS.md, "Anton's fields without a spread").
 * The names come from the description, never from input, and must be plain identifiers.
 */
export function recordReader<R>(t: Stored<R>): (row: Row) => R {
  let reader = readers.get(t);
  if (!reader) {
    const names = t.columnNames;
    const bad = names.find((name) => !PLAIN_NAME.test(name));
    if (bad !== undefined) throw new Error(`column name ${JSON.stringify(bad)} is not a plain identifier`);
    const reads = names.map((name) => (t.columns[name as keyof R] as Column<unknown>).read);
    const fields = names.map((name, i) => `${name}: read[${i}](row.${name})`).join(', ');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- checked names from the description, never input
    const make = new Function('read', `return (row) => ({ ${fields} });`) as (read: unknown[]) => (row: Row) => R;
    reader = make(reads);
    readers.set(t, reader);
  }
  return reader as (row: Row) => R;
}

export function toRecord<R>(t: Stored<R>, row: Row): R {
  return recordReader(t)(row);
}

/** Stored columns of the values given (a change touches no others), with their lower-cased copies. */
export function toColumns<R>(t: Stored<R>, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const column = (t.columns as Record<string, Column<unknown> | undefined>)[key];
    if (value === undefined || column === undefined) continue;
    out[key] = column.write ? column.write(value) : value;
    if (column.lower) out[column.lower] = typeof value === 'string' ? value.toLowerCase() : null;
  }
  return out;
}

export const newRow = <R>(t: Stored<R>, values: Record<string, unknown>, now: string) => ({
  ...t.insertDefaults,
  ...toColumns(t, values),
  created_at: now,
  updated_at: now,
});

/** Rows per multi-row INSERT: about 20 columns each stays far below either dialect's bind limit. */
export const INSERT_BATCH = 500;

/** Inserts many checked values, INSERT_BATCH rows a statement: a bulk load's speed (load.ts). */
export async function insertRecords<R>(
  trx: Knex,
  t: Stored<R>,
  all: readonly Record<string, unknown>[],
  at: Date,
): Promise<number> {
  const now = at.toISOString();
  for (let i = 0; i < all.length; i += INSERT_BATCH) {
    const rows = all.slice(i, i + INSERT_BATCH).map((values) => newRow(t, values, now));
    await trx(t.table).insert(rows);
  }
  return all.length;
}

export async function findRecord<R>(db: Knex, t: Stored<R>, id: number): Promise<R | undefined> {
  const row = await db(t.table)
    .where('id', id)
    .first<Record<string, unknown> | undefined>(...t.columnNames);
  return row ? toRecord(t, row) : undefined;
}

export async function getRecord<R>(ctx: Pick<Ctx, 'db'>, t: Stored<R>, id: number): Promise<R> {
  const record = await findRecord(ctx.db, t, id);
  if (!record) throw notFound(`no ${t.what} with id ${id}`);
  return record;
}

/** Inserts checked values (422 with `fields` when the check failed) and answers the stored record. */
export async function createRecord<R>(ctx: Ctx, t: Stored<R>, checked: Read<Record<string, unknown>>): Promise<R> {
  if (!checked.ok) throw invalid('validation failed', checked.errors);
  return writeTransaction(ctx.db, async (trx) => {
    const rows: unknown = await trx(t.table)
      .insert(newRow(t, checked.values, ctx.clock.now().toISOString()))
      .returning('id');
    return (await findRecord(trx, t, insertedId(rows))) as R;
  });
}

/** Changes one record; `changes` and `checkMerged` (rules on the whole record) see the stored one. */
export async function updateRecord<R, V extends Record<string, unknown>>(
  ctx: Ctx,
  t: Stored<R>,
  id: number,
  checked: Read<V>,
  changes: (current: R, values: V) => Record<string, unknown>,
  checkMerged?: (current: R, values: V) => Read<unknown>,
): Promise<R> {
  if (!checked.ok) throw invalid('validation failed', checked.errors);
  const { values } = checked;
  return writeTransaction(ctx.db, async (trx) => {
    const current = await getRecord({ db: trx }, t, id);
    const columns = toColumns(t, changes(current, values));
    if (Object.keys(columns).length === 0) return current;
    const merged = checkMerged?.(current, values);
    if (merged && !merged.ok) throw invalid('validation failed', merged.errors);
    await trx(t.table)
      .where('id', id)
      .update({ ...columns, updated_at: ctx.clock.now().toISOString() });
    return (await findRecord(trx, t, id)) as R;
  });
}
