// Keywords (docs/http-api.md; described in resources/keyword.ts).
import type { Knex } from 'knex';
import { insertedId } from '../../db/row-id.js';
import { invalid } from '../../errors.js';
import { readRecord, type FieldValues, type Read } from './record-schema.js';
import { newRow } from './records.js';
import { KEYWORD } from './resources/index.js';

export type { Keyword } from './resources/index.js';

export type KeywordInput = FieldValues<typeof KEYWORD.fields>;
export const KEYWORD_LIST = KEYWORD.listOptions;

/** A keyword as `catalog load` takes it: a name, or an object with name, label and gnd. */
export function checkKeywordCreate(input: unknown): Read<KeywordInput> {
  return readRecord(KEYWORD.input.create, typeof input === 'string' ? { name: input } : input);
}

const idOf = async (trx: Knex, lower: string) =>
  trx(KEYWORD.table).where('name_lower', lower).first<{ id: number } | undefined>('id');

/** The keyword of that name (case-insensitive), created when missing (`created`), never changed. */
export async function ensureKeyword(
  trx: Knex,
  input: KeywordInput,
  at: Date,
): Promise<{ id: number; created: boolean }> {
  const { name } = input;
  if (typeof name !== 'string') throw invalid('validation failed', { name: 'required' });
  const lower = name.toLowerCase();
  const existing = await idOf(trx, lower);
  if (existing) return { id: Number(existing.id), created: false };
  const rows: unknown = await trx(KEYWORD.table)
    .insert(newRow(KEYWORD, input, at.toISOString()))
    .onConflict('name_lower')
    .ignore()
    .returning('id');
  if (Array.isArray(rows) && rows.length > 0) return { id: insertedId(rows), created: true };
  // Inserted concurrently (PostgreSQL): ours did nothing, so the row is read.
  const raced = await idOf(trx, lower);
  if (!raced) throw new Error(`keyword "${name}" neither inserted nor found`);
  return { id: Number(raced.id), created: false };
}
