// Archive objects (docs/http-api.md; described in resources/object.ts) with their keywords.
import type { Knex } from 'knex';
import { insertedId } from '../../db/row-id.js';
import { conflict, invalid } from '../../errors.js';
import type { Ctx } from '../context.js';
import { checkValue, name } from './fields.js';
import { ensureKeyword } from './keywords.js';
import type { ListQuery, ListResult } from './list/query.js';
import { optionalParam, shortText, type QueryInput } from './list/params.js';
import { check, v } from '../../validation.js';
import { listRecords } from './list/records.js';
import { readRecord, type Read } from './record-schema.js';
import { newRow } from './records.js';
import { OBJECT, type ObjectRecord, type ObjectStatus } from './resources/index.js';

export { OBJECT_STATUSES, type ObjectStatus } from './resources/index.js';

export interface ArchiveObject extends ObjectRecord {
  /** Keyword names, in case-insensitive alphabetical order. */
  keywords: string[];
}

export interface NewObject {
  identifier: string;
  title?: string | null;
  status: ObjectStatus;
  /** Keyword names; missing keywords are created. */
  keywords?: string[];
}

/** Checks an object as `catalog load` takes it; `status` defaults to `ingested`. */
export function checkObjectCreate(input: unknown): Read<NewObject> {
  const r = readRecord(OBJECT.input.create, input);
  if (!r.ok) return r;
  const v = r.values;
  return {
    ok: true,
    values: {
      identifier: v.identifier as string,
      title: v.title ?? null,
      status: v.status ?? 'ingested',
      keywords: v.keywords ?? [],
    },
  };
}

const taken = (identifier: string) => conflict(`an object with identifier "${identifier}" already exists`);

/** Creates an object with its keywords in the caller's write transaction; a taken identifier is 409. */
export async function createObject(trx: Knex, input: NewObject, at: Date = new Date()): Promise<ArchiveObject> {
  // Callers pass typed values, but they come from uploads and files: check them here, once.
  const r = checkObjectCreate({ ...input });
  if (!r.ok) throw invalid('validation failed', r.errors);
  const { keywords = [], ...v } = r.values;
  const now = at.toISOString();
  if (await trx(OBJECT.table).where('identifier', v.identifier).first('id')) throw taken(v.identifier);
  const rows: unknown = await trx(OBJECT.table)
    .insert(newRow(OBJECT, v, now))
    .onConflict('identifier')
    .ignore()
    .returning('id');
  if (!Array.isArray(rows) || rows.length === 0) throw taken(v.identifier); // by a concurrent transaction
  const id = insertedId(rows);
  const seen = new Set<number>();
  for (const keyword of keywords) {
    const { id: keywordId } = await ensureKeyword(trx, { name: keyword }, at);
    if (seen.has(keywordId)) continue; // "Maps" and "maps" are one keyword
    seen.add(keywordId);
    await trx('object_keywords').insert({ object_id: id, keyword_id: keywordId });
  }
  const record = { id, identifier: v.identifier, title: v.title ?? null, status: v.status, created_at: now };
  return withKeywords(record, (await keywordMap(trx, [id])).get(id) ?? []);
}

/** The object as the API answers it: its keywords before `created_at`. */
function withKeywords(o: ObjectRecord, keywords: string[]): ArchiveObject {
  return { id: o.id, identifier: o.identifier, title: o.title, status: o.status, keywords, created_at: o.created_at };
}

/** Keyword names per object, for a page of objects (one query, not one per object). */
async function keywordMap(db: Knex, ids: number[]): Promise<Map<number, string[]>> {
  const map = new Map<number, string[]>();
  if (ids.length === 0) return map;
  const rows = (await db('object_keywords as ok')
    .join('keywords as k', 'k.id', 'ok.keyword_id')
    .whereIn('ok.object_id', ids)
    .select('ok.object_id as object_id', 'k.name as name')
    .orderBy('k.name_lower')) as { object_id: number | string; name: string }[];
  for (const row of rows) {
    const id = Number(row.object_id);
    const list = map.get(id) ?? [];
    list.push(row.name);
    map.set(id, list);
  }
  return map;
}

/** What GET /api/objects narrows the list to, besides `search`. */
export interface ObjectFilter {
  /** Anton's shortcut: the object with exactly this identifier. */
  identifier: string | null;
}

// Anton's structured filters (`fields[]`, `operators[]`, `values[]`): not supported here, and
// refused rather than ignored: ignoring them would answer every object as if it matched.
const STRUCTURED_FILTERS = ['fields', 'operators', 'values'];
const IDENTIFIER = name(255);

/** Built once: every GET /api/objects reads it (a schema per request costs; bench/RESULTS.md). */
export const IDENTIFIER_PARAM = v.object({ identifier: optionalParam(shortText()) });

/** `?identifier=` (exact), and a 422 for Anton's structured filters. */
export function parseObjectFilter(query: QueryInput): ObjectFilter {
  const errors: Record<string, string> = {};
  for (const key of Object.keys(query)) {
    if (STRUCTURED_FILTERS.includes(key.replace(/\[[^\]]*\]$/, ''))) {
      errors[key.slice(0, 64)] =
        'structured field filters (fields[], operators[], values[]) are not supported; use search or identifier';
    }
  }
  const read = check(IDENTIFIER_PARAM, query);
  let identifier: string | null = null;
  if (!read.ok) Object.assign(errors, read.errors);
  else if (read.value.identifier !== undefined) {
    const r = checkValue(IDENTIFIER, read.value.identifier);
    if (r.ok) identifier = r.value;
    else errors.identifier = r.message;
  }
  if (Object.keys(errors).length > 0) throw invalid('invalid list parameters', errors);
  return { identifier };
}

/** GET /api/objects: `search` is a case-insensitive substring of the title or the identifier. */
export async function listObjects(
  ctx: Ctx,
  q: ListQuery,
  { identifier }: ObjectFilter = { identifier: null },
): Promise<ListResult<ArchiveObject>> {
  const list = await listRecords(ctx, OBJECT, q, identifier === null ? undefined : { identifier });
  const ids = list.data.map((o) => o.id);
  const keywords = await keywordMap(ctx.db, ids);
  return { ...list, data: list.data.map((o) => withKeywords(o, keywords.get(o.id) ?? [])) };
}
