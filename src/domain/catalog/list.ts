// List parameters shared by every catalogue list (SPEC §4.4): search, page, perPage, sortField,
// sortAsc, format. They arrive as Koa's parsed query string, where any parameter may be repeated
// (an array) or absurd; each such case is a 422 naming the parameter, never a 500.
import { hasControlChars } from './fields.js';
import { invalid } from '../../errors.js';
import type { Knex } from 'knex';
import type { KeyPosition } from '../../db/list-order.js';
import { decodeCursor } from './list-cursor.js';

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
  return orWhereLikePattern(builder, column, likePattern(search));
}

/** orWhereLike with the pattern made already (likePattern). */
export function orWhereLikePattern(builder: Knex.QueryBuilder, column: string, pattern: string): Knex.QueryBuilder {
  return builder.orWhereRaw(`?? LIKE ? ESCAPE '\\'`, [column, pattern]);
}

export function offsetOf(q: Pick<ListQuery, 'page' | 'perPage'>): number {
  return (q.page - 1) * q.perPage;
}

/** `count({n: '*'})` answers a string on PostgreSQL and a number on SQLite. */
export function countOf(row: unknown): number {
  if (typeof row === 'object' && row !== null && 'n' in row) return Number(row.n);
  return 0;
}
