// Keywords (SPEC §4.4): read-only over HTTP; created by `catalog load` and by SIP imports.
// A keyword is unique by its case-insensitive name (the `name_lower` unique index).
import { invalid } from '../../errors.js';
import type { Ctx } from '../context.js';
import { field, gndId, isStringRecord, jsonColumn, labelMap, name, parseJsonColumn, readFields, type FieldValues, type Read } from './fields.js';
import { pageOf, whereLike, type ListOptions, type ListQuery, type ListResult } from './list.js';
import type { Knex } from 'knex';
import { insertedId } from '../../db/row-id.js';

export interface Keyword {
  id: number;
  name: string;
  label: Record<string, string> | null;
  gnd: string | null;
}

export const KEYWORD_FIELDS = {
  name: field(name(255), { required: true }),
  label: field(labelMap, { nullable: true }),
  gnd: field(gndId, { nullable: true }),
};
export type KeywordInput = FieldValues<typeof KEYWORD_FIELDS>;

// `label` is Anton's name for the keyword sort (openapi.yaml: sortField id|label): the name.
export const KEYWORD_LIST: ListOptions<'id' | 'name' | 'label' | 'created_at' | 'updated_at'> = {
  sortFields: ['id', 'name', 'label', 'created_at', 'updated_at'],
  formats: ['json', 'select2'],
};

const COLUMNS = ['id', 'name', 'label', 'gnd'] as const;
type KeywordRow = Record<(typeof COLUMNS)[number], unknown>;

function toKeyword(row: KeywordRow): Keyword {
  return {
    id: Number(row.id),
    name: String(row.name),
    label: parseJsonColumn(row.label, isStringRecord),
    gnd: typeof row.gnd === 'string' ? row.gnd : null,
  };
}

/** A keyword as `catalog load` takes it: a name, or an object with name, label and gnd. */
export function checkKeywordCreate(input: unknown): Read<KeywordInput> {
  return readFields(typeof input === 'string' ? { name: input } : input, KEYWORD_FIELDS, 'create');
}

export async function listKeywords(ctx: Ctx, q: ListQuery): Promise<ListResult<Keyword>> {
  const filtered = () => {
    const b = ctx.db('keywords');
    return q.search === null ? b : whereLike(b, 'name_lower', q.search);
  };
  const sortColumn = q.sortField === 'name' || q.sortField === 'label' ? 'name_lower' : q.sortField;
  const { rows, total } = await pageOf<KeywordRow>(filtered, q, sortColumn, COLUMNS);
  return { data: rows.map(toKeyword), meta: { page: q.page, perPage: q.perPage, total } };
}

/**
 * The keyword of that name (case-insensitive), created when missing; `created` says which.
 * An existing keyword is never changed. Safe against a concurrent insert of the same name on
 * PostgreSQL: the insert does nothing on conflict, and the row is then read.
 */
export async function ensureKeyword(trx: Knex, input: KeywordInput, at: Date): Promise<{ id: number; created: boolean }> {
  const keywordName = input.name;
  if (typeof keywordName !== 'string') throw invalid('validation failed', { name: 'required' });
  const lower = keywordName.toLowerCase();
  const existing = (await trx('keywords').where('name_lower', lower).first('id')) as { id: number } | undefined;
  if (existing) return { id: Number(existing.id), created: false };
  const now = at.toISOString();
  const rows: unknown = await trx('keywords')
    .insert({
      name: keywordName,
      name_lower: lower,
      label: jsonColumn(input.label),
      gnd: input.gnd ?? null,
      created_at: now,
      updated_at: now,
    })
    .onConflict('name_lower')
    .ignore()
    .returning('id');
  if (Array.isArray(rows) && rows.length > 0) return { id: insertedId(rows), created: true };
  const raced = (await trx('keywords').where('name_lower', lower).first('id')) as { id: number } | undefined;
  if (!raced) throw new Error(`keyword "${keywordName}" neither inserted nor found`);
  return { id: Number(raced.id), created: false };
}

/**
 * The id of the keyword named `keywordName` (case-insensitive), created when missing. For SIP
 * imports and `catalog load`; call it inside a write transaction. The name is checked (1..255
 * characters, one line) and trimmed; a bad one is a 422 on the field `keywords`.
 */
export async function findOrCreateKeyword(trx: Knex, keywordName: string, at: Date = new Date()): Promise<number> {
  const r = checkKeywordCreate(keywordName);
  if (!r.ok) throw invalid('validation failed', { keywords: r.errors.name ?? 'invalid keyword' });
  return (await ensureKeyword(trx, r.values, at)).id;
}
