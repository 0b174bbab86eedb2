// List parameters of every catalogue list (docs/http-api.md), from Koa's parsed query string, where any
// parameter may be repeated (an array) or absurd: each such case is a 422 naming it, never a 500.
import { hasControlChars } from '../fields.js';
import { invalid } from '../../../errors.js';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { KeyPosition } from '../../../db/list-sql.js';
import { decodeCursor } from './cursor.js';
import { check, oneOf, v } from '../../../validation.js';
import { optionalParam, param, wholeNumber, type QueryInput } from './params.js';

export type { QueryInput } from './params.js';

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

/** The list parameters of a resource as one schema (docs/http-api.md), with its sort fields and formats. */
export function listParams<F extends string>(options: ListOptions<F>) {
  const searchMax = options.searchMax ?? 255;
  return v.object({
    search: param(
      v.pipe(
        v.string(),
        v.transform((s) => s.trim().toLowerCase()),
        v.check((s) => [...s].length <= searchMax, `must be at most ${searchMax} characters`),
        v.check((s) => !hasControlChars(s), 'must not contain control characters'),
        v.metadata({ maxLength: searchMax }),
        v.transform((s) => (s === '' ? null : s)),
      ),
      null,
    ),
    page: param(wholeNumber(1, MAX_PAGE), 1),
    perPage: param(wholeNumber(1, MAX_PER_PAGE), DEFAULT_PER_PAGE),
    sortField: param(oneOf(options.sortFields), 'id' as F),
    sortAsc: param(
      v.pipe(
        v.picklist(['1', 'true', '0', 'false'], 'must be 0 or 1'),
        v.transform((x) => x === '1' || x === 'true'),
      ),
      true,
    ),
    format: param(oneOf(options.formats), 'json'),
    // Checked against its sort once that is known (cursor.ts); described here.
    cursor: optionalParam(v.pipe(v.string(), v.metadata({ pattern: '^(start|[A-Za-z0-9_-]{1,2048})$' }))),
  });
}

/** Query strings longer than this are parsed each time (a list's are short, and repeat). */
const KEPT_LENGTH = 256;
/** Parses kept per resource: 256 characters hold at most ~85 parameters, a few MB if all are hostile. */
const KEPT = 500;

/** Per resource: its schema, built once, and the parses of the query strings asked again and again. */
interface ResourceLists {
  schema: ReturnType<typeof listParams>;
  byText: LRUCache<string, ListQuery>;
}

const perResource = new WeakMap<ListOptions<string>, ResourceLists>();

/** The list parameters of `query`; `text`, the query string it was parsed from, keys a bounded cache. */
export function parseListQuery<F extends string>(
  query: QueryInput,
  options: ListOptions<F>,
  text?: string,
): ListQuery<F> {
  let lists = perResource.get(options);
  if (!lists) perResource.set(options, (lists = { schema: listParams(options), byText: new LRUCache({ max: KEPT }) }));
  const schema = lists.schema as unknown as ReturnType<typeof listParams<F>>;
  if (text === undefined || text.length > KEPT_LENGTH) return readListQuery(query, schema);
  let parsed = lists.byText.get(text);
  if (!parsed) lists.byText.set(text, (parsed = readListQuery(query, schema)));
  return parsed as ListQuery<F>;
}

function readListQuery<F extends string>(query: QueryInput, schema: ReturnType<typeof listParams<F>>): ListQuery<F> {
  const read = check(schema, query);
  const errors = read.ok ? {} : { ...read.errors };
  let cursor: ListQuery['cursor'];
  // A cursor is read against the sort it was made for, so only once the sort is known.
  if (read.ok && read.value.cursor !== undefined) {
    const { cursor: raw, sortField, sortAsc } = read.value;
    cursor = raw === 'start' ? 'start' : (decodeCursor(raw, sortField, sortAsc) ?? undefined);
    if (cursor === undefined) errors.cursor = 'must be "start" or a next_cursor of this list (same sortField, sortAsc)';
  }
  if (typeof query.cursor === 'string' && query.cursor !== '' && query.page !== undefined) {
    errors.page = 'must not be given with cursor';
  }
  if (!read.ok || Object.keys(errors).length > 0) throw invalid('invalid list parameters', errors);
  const { search, page, perPage, sortField, sortAsc, format } = read.value;
  if (typeof cursor === 'object') Object.freeze(cursor);
  return Object.freeze({ search, page, perPage, sortField, sortAsc, format, ...(cursor ? { cursor } : {}) });
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

/** Adds `OR column LIKE pattern` over lower-cased text: case-insensitive on both dialects without ILIKE. */
export function orWhereLikePattern(builder: Knex.QueryBuilder, column: string, pattern: string): Knex.QueryBuilder {
  return builder.orWhereRaw(`?? LIKE ? ESCAPE '\\'`, [column, pattern]);
}
