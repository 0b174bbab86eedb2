// List parameters shared by every catalogue list (SPEC §4.4): search, page, perPage, sortField,
// sortAsc, format. They arrive as Koa's parsed query string, where any parameter may be repeated
// (an array) or absurd; each such case is a 422 naming the parameter, never a 500.
import { hasControlChars } from './fields.js';
import { invalid } from '../../errors.js';
import type { Knex } from 'knex';
import { afterPosition, orderByKey, type KeyPosition, type SortKey } from '../../db/list-order.js';
import { withinTextIndex } from '../../db/text-index.js';
import type { Ctx } from '../context.js';
import { toRecord, type Stored } from './records.js';
import type { Column } from './resources/columns.js';
import { decodeCursor, encodeCursor } from './list-cursor.js';

export type QueryInput = Record<string, string | string[] | undefined>;
export type ListFormat = 'json' | 'select2' | 'beacon';

export interface ListQuery<F extends string = string> {
  /** Lower-cased substring to look for, or null for no filter. */
  search: string | null;
  page: number;
  perPage: number;
  sortField: F;
  sortAsc: boolean;
  format: ListFormat;
  /** Keyset paging (`cursor`): from the start, or after a row; absent for `page`. */
  cursor?: KeyPosition | 'start';
}

export interface ListOptions<F extends string> {
  /** Accepted sortField values; the first is not special, the default is `id`. */
  sortFields: readonly F[];
  /** Accepted formats; `json` should always be one. */
  formats: readonly ListFormat[];
  /** Longest accepted search string (the searched column's width). */
  searchMax?: number;
}

export interface ListMeta {
  page: number;
  perPage: number;
  /** Exact, or (with `total_exact: false`) a lower bound: EXACT_TOTAL_LIMIT. */
  total: number;
  /** Present, and false, when the filter matched more rows than were counted. */
  total_exact?: false;
  /** With `cursor`: the cursor of the next page, or null after the last. */
  next_cursor?: string | null;
}

export interface ListResult<T> {
  data: T[];
  meta: ListMeta;
}

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;
// Far beyond any real catalogue; it keeps the OFFSET a small safe integer on both dialects.
export const MAX_PAGE = 1_000_000;
/** A filtered list counts its rows up to here; beyond, `meta.total` is this and inexact. */
export const EXACT_TOTAL_LIMIT = 10_000;

/**
 * One value of a query parameter. A repeated parameter (`?page=1&page=2`) is refused rather than
 * guessed at. An empty value counts as absent, as an empty form field does.
 */
export function singleParam(query: QueryInput, key: string, errors: Record<string, string>): string | undefined {
  const v = query[key];
  if (Array.isArray(v)) {
    errors[key] = 'must be given once';
    return undefined;
  }
  if (v === undefined || v === '') return undefined;
  return v;
}

/** A whole-number query parameter in [min, max]; a problem goes into `errors` under `key`. */
export function intParam(
  raw: string | undefined,
  key: string,
  min: number,
  max: number,
  fallback: number,
  errors: Record<string, string>,
): number {
  if (raw === undefined) return fallback;
  // Digits only: no signs, exponents, decimals or hex that Number() would quietly accept.
  const n = /^[0-9]{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    errors[key] = `must be an integer from ${min} to ${max}`;
    return fallback;
  }
  return n;
}

export function parseListQuery<F extends string>(query: QueryInput, options: ListOptions<F>): ListQuery<F> {
  const errors: Record<string, string> = {};
  const searchMax = options.searchMax ?? 255;

  const rawSearch = singleParam(query, 'search', errors);
  let search: string | null = null;
  if (rawSearch !== undefined) {
    const s = rawSearch.trim().toLowerCase();
    if ([...s].length > searchMax) errors.search = `must be at most ${searchMax} characters`;
    else if (hasControlChars(s)) errors.search = 'must not contain control characters';
    else if (s !== '') search = s;
  }

  const page = intParam(singleParam(query, 'page', errors), 'page', 1, MAX_PAGE, 1, errors);
  const perPage = intParam(singleParam(query, 'perPage', errors), 'perPage', 1, MAX_PER_PAGE, DEFAULT_PER_PAGE, errors);

  const rawSort = singleParam(query, 'sortField', errors);
  let sortField = 'id' as F;
  if (rawSort !== undefined) {
    if ((options.sortFields as readonly string[]).includes(rawSort)) sortField = rawSort as F;
    else errors.sortField = `must be one of ${options.sortFields.join(', ')}`;
  }

  const rawAsc = singleParam(query, 'sortAsc', errors);
  let sortAsc = true;
  if (rawAsc !== undefined) {
    if (rawAsc === '1' || rawAsc === 'true') sortAsc = true;
    else if (rawAsc === '0' || rawAsc === 'false') sortAsc = false;
    else errors.sortAsc = 'must be 0 or 1';
  }

  const rawFormat = singleParam(query, 'format', errors);
  let format: ListFormat = 'json';
  if (rawFormat !== undefined) {
    if ((options.formats as readonly string[]).includes(rawFormat)) format = rawFormat as ListFormat;
    else errors.format = `must be one of ${options.formats.join(', ')}`;
  }

  const rawCursor = singleParam(query, 'cursor', errors);
  let cursor: ListQuery['cursor'];
  if (rawCursor !== undefined) {
    cursor = rawCursor === 'start' ? 'start' : (decodeCursor(rawCursor, sortField, sortAsc) ?? undefined);
    if (cursor === undefined) errors.cursor = 'must be "start" or a next_cursor of this list (same sortField, sortAsc)';
    if (query.page !== undefined) errors.page = 'must not be given with cursor';
  }

  if (Object.keys(errors).length > 0) throw invalid('invalid list parameters', errors);
  return { search, page, perPage, sortField, sortAsc, format, ...(cursor ? { cursor } : {}) };
}

/** `%`, `_` and `\` match themselves: the search is a plain substring, not a pattern. */
export function likePattern(search: string): string {
  return `%${escapeLike(search)}%`;
}

/** As likePattern, for values that begin with `search`. */
export function likePrefix(search: string): string {
  return `${escapeLike(search)}%`;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Adds `OR column LIKE '%search%'` with backslash as the escape character. The column holds
 * lower-cased text and the search is lower-cased, so this is case-insensitive on both SQLite
 * (whose LIKE folds ASCII only) and PostgreSQL (whose LIKE is case-sensitive), without ILIKE.
 */
export function orWhereLike(builder: Knex.QueryBuilder, column: string, search: string): Knex.QueryBuilder {
  return builder.orWhereRaw(`?? LIKE ? ESCAPE '\\'`, [column, likePattern(search)]);
}

export function offsetOf(q: Pick<ListQuery, 'page' | 'perPage'>): number {
  return (q.page - 1) * q.perPage;
}

/** `count({n: '*'})` answers a string on PostgreSQL and a number on SQLite. */
export function countOf(row: unknown): number {
  if (typeof row === 'object' && row !== null && 'n' in row) return Number(row.n);
  return 0;
}

/** What a list needs of a resource's description. */
export interface Listed<R> extends Stored<R> {
  list: { search: readonly string[]; sortColumns?: Partial<Record<string, string>> };
}

/** The sort of a list: its column (a whitelisted name), whether it holds NULLs, the direction. */
function sortKeyOf<R>(t: Listed<R>, q: ListQuery): SortKey {
  const column = t.list.sortColumns?.[q.sortField] ?? q.sortField;
  const described = (t.columns as Record<string, Column<unknown> | undefined>)[q.sortField];
  return { column, nullable: described?.nullable === true, asc: q.sortAsc };
}

/**
 * The filter's total: exact from the maintained counter when nothing narrows the list, else
 * counted up to EXACT_TOTAL_LIMIT (a bounded count; beyond it the total is that bound, inexact).
 */
async function totalOf(db: Knex, table: string, filtered: (() => Knex.QueryBuilder) | null): Promise<ListTotal> {
  if (filtered === null) return { total: await catalogCount(db, table), exact: true };
  const row: unknown = await db
    .from(
      filtered()
        .select(db.raw('1'))
        .limit(EXACT_TOTAL_LIMIT + 1)
        .as('bounded'),
    )
    .count({ n: '*' })
    .first();
  const n = countOf(row);
  return n > EXACT_TOTAL_LIMIT ? { total: EXACT_TOTAL_LIMIT, exact: false } : { total: n, exact: true };
}

interface ListTotal {
  total: number;
  exact: boolean;
}

/**
 * One page of a resource's records: `search` is a case-insensitive substring of any of its
 * searched columns (their lower-cased copies); `narrow`, when given, adds the resource's own
 * filters. The search runs through the text index (db/text-index.ts) with its LIKE kept as the
 * condition; a page is an index walk in the sort's order; a `cursor` continues after a row.
 */
export async function listRecords<R>(
  ctx: Pick<Ctx, 'db'>,
  t: Listed<R>,
  q: ListQuery,
  narrow?: (b: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<ListResult<R>> {
  const { db } = ctx;
  const search = q.search;
  const filtered = () => {
    const b = narrow ? narrow(db(t.table)) : db(t.table);
    if (search === null) return b;
    return withinTextIndex(db, b, t.table, textColumnsOf(t), [search]).where((w) => {
      for (const column of t.list.search) void orWhereLike(w, column, search);
    });
  };
  const key = sortKeyOf(t, q);
  // The sort value too (a lower-cased copy is no column of the record): a cursor is made of it.
  const selected = t.columnNames.includes(key.column) ? t.columnNames : [...t.columnNames, key.column];
  const rowsOf = (b: Knex.QueryBuilder) => b.select<Record<string, unknown>[]>(...selected).limit(q.perPage);
  const countPromise = totalOf(db, t.table, narrow || search !== null ? filtered : null);
  let rows: Record<string, unknown>[];
  let counted: ListTotal;
  const cursor = q.cursor;
  if (cursor !== undefined || offsetOf(q) === 0) {
    const b = filtered();
    if (cursor !== undefined && cursor !== 'start') void afterPosition(b, key, cursor);
    [counted, rows] = await Promise.all([countPromise, rowsOf(orderByKey(db, b, key))]);
  } else {
    const offset = offsetOf(q);
    counted = await countPromise;
    const { total, exact } = counted;
    if (exact && offset >= total) rows = [];
    else if (exact && offset > total / 2) {
      // A page in the second half is read from the end, in the reverse order: the last page
      // costs what the first does.
      const fromEnd = Math.max(0, total - offset - q.perPage);
      const b = orderByKey(db, filtered(), key, true).limit(Math.min(q.perPage, total - offset));
      rows = (await b.select<Record<string, unknown>[]>(...selected).offset(fromEnd)).reverse();
    } else rows = await rowsOf(orderByKey(db, filtered(), key)).offset(offset);
  }
  const meta: ListMeta = { page: q.page, perPage: q.perPage, total: counted.total };
  if (!counted.exact) meta.total_exact = false;
  if (cursor !== undefined) {
    const last = rows.at(-1);
    meta.next_cursor = rows.length === q.perPage && last ? encodeCursor(q, key.column, last) : null;
  }
  return { data: rows.map((row) => toRecord(t, row)), meta };
}

/** The text index's columns for the list's searched columns (see the migration catalog_scale). */
function textColumnsOf<R>(t: Listed<R>): string[] {
  return t.list.search.map((column) => column.replace(/_lower$/, ''));
}

/** The row count of a catalogue table, kept by triggers (migration catalog_scale). */
async function catalogCount(db: Knex, table: string): Promise<number> {
  return countOf(await db('catalog_counts').where('name', table).first({ n: 'n' }));
}
