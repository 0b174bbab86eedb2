// One page of a catalogue list and its total, read the way an index serves them (db/list-sql.ts).
import {
  COUNTER,
  countSql,
  pageSql,
  rowsOf,
  TOTAL_ALONG,
  type ListFilter,
  type SortKey,
} from '../../../db/list-sql.js';
import { textMatchOf } from '../../../db/text-index.js';
import type { Ctx } from '../../context.js';
import { EXACT_TOTAL_LIMIT, likePattern, type ListMeta, type ListQuery, type ListResult } from './query.js';
import { encodeCursor } from './cursor.js';
import { recordReader, type Stored } from '../records.js';
import type { Column } from '../resources/columns.js';

type Row = Record<string, unknown>;

/** A resource's own filters: columns narrowed to one value each (an actor's `type`). */
export type Narrowing = Readonly<Record<string, string>>;

/** What a list needs of a resource's description. */
export interface Listed<R> extends Stored<R> {
  list: { search: readonly string[]; sortColumns?: Partial<Record<string, string>> };
}

type ListTotal = { total: number; exact: boolean };

/** The sort of a list: its column (a whitelisted name), whether it holds NULLs, the direction. */
function sortKeyOf<R>(t: Listed<R>, q: ListQuery): SortKey {
  const column = t.list.sortColumns?.[q.sortField] ?? q.sortField;
  const described = (t.columns as Record<string, Column<unknown> | undefined>)[q.sortField];
  return { column, nullable: described?.nullable === true, asc: q.sortAsc };
}

/** The text index's columns for the list's searched columns (see the migration catalog_scale). */
function textColumnsOf<R>(t: Listed<R>): string[] {
  return t.list.search.map((column) => column.replace(/_lower$/, ''));
}

/** `count({n: '*'})` answers a string on PostgreSQL and a number on SQLite. */
const countOf = (rows: Row[]): number => Number(rows[0]?.n ?? 0);

/**
 * One page of a resource's records: `search` is a case-insensitive substring of any of its
 * searched columns (their lower-cased copies); a `cursor` continues after a row.
 */
export async function listRecords<R>(
  { db }: Pick<Ctx, 'db'>,
  t: Listed<R>,
  q: ListQuery,
  narrow?: Narrowing,
): Promise<ListResult<R>> {
  const { search, cursor } = q;
  const match = search === null ? null : textMatchOf(db, textColumnsOf(t), [search]);
  const key = sortKeyOf(t, q);
  const at = cursor === undefined || cursor === 'start' ? null : cursor;
  const equal = narrow ? Object.keys(narrow) : [];
  const filter: ListFilter = {
    table: t.table,
    equal,
    like: search === null ? null : t.list.search,
    indexed: match !== null,
  };
  const values: Record<string, unknown> = {
    table: t.table,
    match,
    like: search === null ? null : likePattern(search),
    after: at?.value ?? null,
    afterId: at?.id ?? null,
    limit: q.perPage,
    offset: null,
  };
  for (const column of equal) values[`equal:${column}`] = narrow?.[column];
  // The sort value too (a lower-cased copy is no column of the record): a cursor is made of it.
  const columns = t.columnNames.includes(key.column) ? t.columnNames : [...t.columnNames, key.column];
  const after = at === null ? null : at.value === null ? 'null' : 'value';
  // Written out, not spread from a common object: V8 runs the spread slowly here (bench/RESULTS.md,
  // "The list SQL written out").
  const page = (reverse: boolean, offset: boolean, total: boolean) =>
    pageSql(db, filter, { columns, key, after, reverse, offset, total });
  const unfiltered = equal.length === 0 && search === null;
  const readTotal = () => totalOf(db, unfiltered ? null : filter, values);
  const offset = (q.page - 1) * q.perPage;
  const fromStart = cursor !== undefined || offset === 0;
  let rows: Row[];
  let counted: ListTotal;
  if (unfiltered && fromStart) {
    // The maintained total comes along with the rows, one query instead of two (bench/RESULTS.md, "Archive
    // scale, third pass"); a page without rows counts apart.
    rows = await rowsOf(db, page(false, false, true), values);
    const first = rows[0];
    counted = first ? { total: Number(first[TOTAL_ALONG]), exact: true } : await readTotal();
  } else if (fromStart) {
    [counted, rows] = await Promise.all([readTotal(), rowsOf(db, page(false, false, false), values)]);
  } else {
    counted = await readTotal();
    const { total, exact } = counted;
    if (exact && offset >= total) rows = [];
    else if (exact && offset > total / 2) {
      // A page in the second half is read backwards from the end: the last costs as the first.
      const v = {
        ...values,
        limit: Math.min(q.perPage, total - offset),
        offset: Math.max(0, total - offset - q.perPage),
      };
      rows = (await rowsOf(db, page(true, true, false), v)).reverse();
    } else {
      rows = await rowsOf(db, page(false, true, false), { ...values, offset });
    }
  }
  const meta: ListMeta = { page: q.page, perPage: q.perPage, total: counted.total };
  if (!counted.exact) meta.total_exact = false;
  if (cursor !== undefined) {
    const last = rows.at(-1);
    meta.next_cursor = rows.length === q.perPage && last ? encodeCursor(q, key.column, last) : null;
  }
  return { data: rows.map(recordReader(t)), meta };
}

/** The total: exact from the maintained counter without a filter (null), else counted up to EXACT_TOTAL_LIMIT. */
async function totalOf(db: Ctx['db'], filter: ListFilter | null, values: Record<string, unknown>): Promise<ListTotal> {
  if (filter === null) return { total: countOf(await rowsOf(db, COUNTER, values)), exact: true };
  const n = countOf(await rowsOf(db, countSql(filter, EXACT_TOTAL_LIMIT + 1), values));
  return n > EXACT_TOTAL_LIMIT ? { total: EXACT_TOTAL_LIMIT, exact: false } : { total: n, exact: true };
}
