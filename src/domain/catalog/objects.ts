// Archive objects (SPEC §4.4): read-only over HTTP; created by SIP imports and `catalog load`.
import { conflict, invalid } from '../../errors.js';
import type { Ctx } from '../context.js';
import { field, name, oneOf, readFields, text, type Checked, type Read } from './fields.js';
import { ensureKeyword } from './keywords.js';
import { orWhereLike, pageOf, singleParam, whereLike, type ListOptions, type ListQuery, type ListResult, type QueryInput } from './list.js';
import type { Knex } from 'knex';
import { insertedId } from '../../db/row-id.js';

export const OBJECT_STATUSES = ['ingesting', 'ingested', 'failed'] as const;
export type ObjectStatus = (typeof OBJECT_STATUSES)[number];

export interface ArchiveObject {
  id: number;
  identifier: string;
  title: string | null;
  status: ObjectStatus;
  /** Keyword names, in case-insensitive alphabetical order. */
  keywords: string[];
  created_at: string;
}

export interface NewObject {
  identifier: string;
  title?: string | null;
  status: ObjectStatus;
  /** Keyword names; missing keywords are created. */
  keywords?: string[];
}

/** The keyword names of an object, checked one by one so the message names the bad entry. */
const keywordNames = (v: unknown): Checked<string[]> => {
  if (!Array.isArray(v)) return { ok: false, message: 'must be an array of keyword names' };
  if (v.length > 1000) return { ok: false, message: 'must have at most 1000 entries' };
  const out: string[] = [];
  for (const [i, item] of v.entries()) {
    const r = name(255)(item);
    if (!r.ok) return { ok: false, message: `[${i}] ${r.message}` };
    out.push(r.value);
  }
  return { ok: true, value: out };
};

export const OBJECT_FIELDS = {
  identifier: field(name(255), { required: true }),
  title: field(text(1024), { nullable: true }),
  status: field(oneOf(OBJECT_STATUSES)),
  keywords: field(keywordNames, { nullable: true }),
};

/** Checks an object as `catalog load` takes it; `status` defaults to `ingested`. */
export function checkObjectCreate(input: unknown): Read<NewObject> {
  const r = readFields(input, OBJECT_FIELDS, 'create');
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

export const OBJECT_LIST: ListOptions<'id' | 'identifier' | 'title' | 'status' | 'created_at'> = {
  sortFields: ['id', 'identifier', 'title', 'status', 'created_at'],
  formats: ['json', 'select2'],
  searchMax: 1024,
};

/**
 * Creates an object with its keywords (created when missing), inside the caller's write
 * transaction. An identifier already in use is a conflict (409), also when a concurrent
 * transaction took it a moment earlier.
 */
export async function createObject(trx: Knex, input: NewObject, at: Date = new Date()): Promise<ArchiveObject> {
  // Callers pass typed values, but they come from uploads and files: check them here, once.
  const r = checkObjectCreate({ ...input });
  if (!r.ok) throw invalid('validation failed', r.errors);
  const v = r.values;
  const now = at.toISOString();
  if (await trx('objects').where('identifier', v.identifier).first('id')) {
    throw conflict(`an object with identifier "${v.identifier}" already exists`);
  }
  const rows: unknown = await trx('objects')
    .insert({
      identifier: v.identifier,
      identifier_lower: v.identifier.toLowerCase(),
      title: v.title ?? null,
      title_lower: v.title ? v.title.toLowerCase() : null,
      status: v.status,
      created_at: now,
      updated_at: now,
    })
    .onConflict('identifier')
    .ignore()
    .returning('id');
  if (!Array.isArray(rows) || rows.length === 0) {
    throw conflict(`an object with identifier "${v.identifier}" already exists`);
  }
  const id = insertedId(rows);
  const seen = new Set<number>();
  for (const keyword of v.keywords ?? []) {
    const { id: keywordId } = await ensureKeyword(trx, { name: keyword }, at);
    if (seen.has(keywordId)) continue; // "Maps" and "maps" are one keyword
    seen.add(keywordId);
    await trx('object_keywords').insert({ object_id: id, keyword_id: keywordId });
  }
  return { id, identifier: v.identifier, title: v.title ?? null, status: v.status, keywords: await keywordsOf(trx, id), created_at: now };
}

/** The identifier of an object, or undefined when there is no such object. */
export async function objectIdentifier(ctx: Pick<Ctx, 'db'>, id: number): Promise<string | undefined> {
  const row = (await ctx.db('objects').where('id', id).first('identifier')) as { identifier: string } | undefined;
  return row?.identifier;
}

async function keywordsOf(db: Knex, objectId: number): Promise<string[]> {
  return (await keywordMap(db, [objectId])).get(objectId) ?? [];
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

const COLUMNS = ['id', 'identifier', 'title', 'status', 'created_at'] as const;
type ObjectRow = Record<(typeof COLUMNS)[number], unknown>;

/** What GET /api/objects narrows the list to, besides `search`. */
export interface ObjectFilter {
  /** Anton's shortcut: the object with exactly this identifier. */
  identifier: string | null;
}

// Anton's structured filters (`fields[]`, `operators[]`, `values[]`): not supported here, and
// refused rather than ignored: ignoring them would answer every object as if it matched.
const STRUCTURED_FILTERS = ['fields', 'operators', 'values'];

/** `?identifier=` (exact), and a 422 for Anton's structured filters. */
export function parseObjectFilter(query: QueryInput): ObjectFilter {
  const errors: Record<string, string> = {};
  for (const key of Object.keys(query)) {
    const base = key.replace(/\[[^\]]*\]$/, '');
    if (STRUCTURED_FILTERS.includes(base)) {
      errors[key.length > 64 ? key.slice(0, 64) : key] = 'structured field filters (fields[], operators[], values[]) are not supported; use search or identifier';
    }
  }
  const raw = singleParam(query, 'identifier', errors);
  let identifier: string | null = null;
  if (raw !== undefined) {
    const r = name(255)(raw);
    if (r.ok) identifier = r.value;
    else errors.identifier = r.message;
  }
  if (Object.keys(errors).length > 0) throw invalid('invalid list parameters', errors);
  return { identifier };
}

// Identifiers and titles sort by their lower-cased copies: the same order on both dialects.
const SORT_COLUMNS: Record<string, string> = { identifier: 'identifier_lower', title: 'title_lower' };

/**
 * GET /api/objects. `search` is a case-insensitive substring of the title or the identifier
 * (their lower-cased copies, as for the names of actors, places and keywords).
 */
export async function listObjects(ctx: Ctx, q: ListQuery, filter: ObjectFilter = { identifier: null }): Promise<ListResult<ArchiveObject>> {
  const filtered = () => {
    let b = ctx.db('objects');
    if (filter.identifier !== null) b = b.where('identifier', filter.identifier);
    const search = q.search;
    if (search === null) return b;
    return b.where((w) => {
      void orWhereLike(whereLike(w, 'title_lower', search), 'identifier_lower', search);
    });
  };
  const { rows, total } = await pageOf<ObjectRow>(filtered, q, SORT_COLUMNS[q.sortField] ?? q.sortField, COLUMNS);
  const keywords = await keywordMap(
    ctx.db,
    rows.map((r) => Number(r.id)),
  );
  const data = rows.map((r) => ({
    id: Number(r.id),
    identifier: String(r.identifier),
    title: typeof r.title === 'string' ? r.title : null,
    status: r.status as ObjectStatus,
    keywords: keywords.get(Number(r.id)) ?? [],
    created_at: String(r.created_at),
  }));
  return { data, meta: { page: q.page, perPage: q.perPage, total } };
}
