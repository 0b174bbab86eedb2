// One page of a catalogue list and its total, read the way an index serves them: the sort's
// index walked in order, a search through the text index with its LIKE deciding, deep pages
// read from the nearer end, a cursor continued after its row. On SQLite the SQL of each list
// shape is compiled once (db/compiled-sql.ts) and run as a prepared statement on the read
// connections (db/prepared-reads.ts); PostgreSQL, and lists a resource narrows with its own
// filter, build their query with knex each time.
import type { Knex } from 'knex';
import { compiledSql, type Values } from '../../../db/compiled-sql.js';
import { afterPosition, orderByKey, type SortKey } from '../../../db/list-order.js';
import { preparedReads } from '../../../db/prepared-reads.js';
import { joinTextMatch, TEXT_HIT_ID, textMatchOf, whereTextMatch } from '../../../db/text-index.js';
import type { Ctx } from '../../context.js';
import {
  countOf,
  EXACT_TOTAL_LIMIT,
  likePattern,
  offsetOf,
  orWhereLikePattern,
  type ListMeta,
  type ListQuery,
  type ListResult,
} from './query.js';
import { encodeCursor } from './cursor.js';
import { recordReader, type Stored } from '../records.js';
import type { Column } from '../resources/columns.js';

type Row = Record<string, unknown>;

/** What a list needs of a resource's description. */
export interface Listed<R> extends Stored<R> {
  list: { search: readonly string[]; sortColumns?: Partial<Record<string, string>> };
}

interface ListTotal {
  total: number;
  exact: boolean;
}

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

/**
 * One page of a resource's records: `search` is a case-insensitive substring of any of its
 * searched columns (their lower-cased copies); `narrow`, when given, adds the resource's own
 * filters. A `cursor` continues after a row.
 */
export async function listRecords<R>(
  ctx: Pick<Ctx, 'db'>,
  t: Listed<R>,
  q: ListQuery,
  narrow?: (b: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<ListResult<R>> {
  const { db } = ctx;
  const search = q.search;
  const match = search === null ? null : textMatchOf(db, textColumnsOf(t), [search]);
  const sort = sortKeyOf(t, q);
  // Searched through the index and in id order: the hits are joined in id order, and a page
  // stops after its rows (joinTextMatch). Other sorts walk their own index.
  const byHits = match !== null && sort.column === 'id';
  const key: SortKey = byHits ? { ...sort, idColumn: TEXT_HIT_ID } : sort;
  const cursor = q.cursor;
  const at = cursor === undefined || cursor === 'start' ? null : cursor;
  const values: Values = {
    like: search === null ? null : likePattern(search),
    match,
    after: at?.value ?? null,
    afterId: at?.id ?? null,
    limit: q.perPage,
    offset: null,
  };
  // The choices the query makes from its values (see compiledSql); null where a resource's
  // own filter takes part (its SQL is not known from here).
  const shape = (part: string, v: Values) =>
    narrow
      ? null
      : [
          t.table,
          part,
          key.column,
          key.asc,
          v.like !== null,
          v.match !== null,
          at === null ? '' : v.after !== null,
        ].join('|');
  const filtered = (v: Values, joined: boolean) => {
    const b = narrow ? narrow(db(t.table)) : db(t.table);
    const like = v.like;
    if (like === null) return b;
    const m = v.match === null ? null : String(v.match);
    const indexed = m === null ? b : joined ? joinTextMatch(db, b, t.table, m) : whereTextMatch(b, t.table, m);
    return indexed.where((w) => {
      for (const column of t.list.search) void orWhereLikePattern(w, column, String(like));
    });
  };
  // The sort value too (a lower-cased copy is no column of the record): a cursor is made of it.
  const selected = t.columnNames.includes(key.column) ? t.columnNames : [...t.columnNames, key.column];
  const page = (v: Values, reverse = false) => {
    const b = filtered(v, byHits);
    if (v.afterId !== null) void afterPosition(b, key, { value: v.after as string | null, id: Number(v.afterId) });
    void orderByKey(db, b, key, reverse)
      .select(...selected)
      .limit(Number(v.limit));
    return v.offset === null ? b : b.offset(Number(v.offset));
  };
  const unfiltered = !narrow && search === null;
  const readTotal = () => totalOf(db, t.table, unfiltered ? null : { values, shape, filtered });
  let rows: Row[];
  let counted: ListTotal;
  if (unfiltered && (cursor !== undefined || offsetOf(q) === 0)) {
    // The maintained total comes along with the page's rows: one statement, where two (rows and
    // total) were two hand-offs to the thread pool and back, a seventh of a busy daemon's time
    // in a profile of GET /api/actors. A page without rows reads the total on its own.
    const withTotal = (v: Values) => page(v).select(db.raw(`(${COUNTER_SQL}) AS ??`, [t.table, TOTAL_ALONG]));
    rows = await read(db, shape('page-total', values), values, withTotal);
    const first = rows[0];
    counted = first ? { total: countOf({ n: first[TOTAL_ALONG] }), exact: true } : await readTotal();
  } else if (cursor !== undefined || offsetOf(q) === 0) {
    [counted, rows] = await Promise.all([readTotal(), read(db, shape('page', values), values, page)]);
  } else {
    const offset = offsetOf(q);
    counted = await readTotal();
    const { total, exact } = counted;
    if (exact && offset >= total) rows = [];
    else if (exact && offset > total / 2) {
      // A page in the second half is read from the end, in the reverse order: the last page
      // costs what the first does.
      const v = {
        ...values,
        limit: Math.min(q.perPage, total - offset),
        offset: Math.max(0, total - offset - q.perPage),
      };
      rows = (await read(db, shape('from-end', v), v, (w) => page(w, true))).reverse();
    } else {
      const v = { ...values, offset };
      rows = await read(db, shape('offset', v), v, page);
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

/** The row count a table's triggers keep (migration catalog_scale), as a scalar subquery. */
const COUNTER_SQL = 'SELECT n FROM catalog_counts WHERE name = ?';
/** The column the total travels in beside a page's own (the record reader reads only the record's). */
const TOTAL_ALONG = 'list_total';

interface Filtered {
  values: Values;
  shape: (part: string, v: Values) => string | null;
  filtered: (v: Values, joined: boolean) => Knex.QueryBuilder;
}

/**
 * The filter's total: exact from the maintained counter when nothing narrows the list, else
 * counted up to EXACT_TOTAL_LIMIT (a bounded count; beyond it the total is that bound, inexact).
 * The count joins the text index's hits (it needs no order; the join reads fewer rows).
 */
async function totalOf(db: Knex, table: string, f: Filtered | null): Promise<ListTotal> {
  if (f === null) {
    const counter = (v: Values) => db('catalog_counts').where('name', String(v.table)).select({ n: 'n' });
    return { total: countOf((await read(db, 'catalog_counts', { table }, counter))[0]), exact: true };
  }
  const bounded = (v: Values) =>
    db
      .from(
        f
          .filtered(v, true)
          .select(db.raw('1'))
          .limit(EXACT_TOTAL_LIMIT + 1)
          .as('bounded'),
      )
      .count({ n: '*' });
  const n = countOf((await read(db, f.shape('count', f.values), f.values, bounded))[0]);
  return n > EXACT_TOTAL_LIMIT ? { total: EXACT_TOTAL_LIMIT, exact: false } : { total: n, exact: true };
}

/**
 * The rows of a query: on SQLite on a prepared statement (its SQL compiled once per shape; each
 * time where `shape` is null), elsewhere through knex.
 */
async function read(
  db: Knex,
  shape: string | null,
  values: Values,
  build: (v: Values) => Knex.QueryBuilder,
): Promise<Row[]> {
  const reads = preparedReads(db);
  if (!reads) return (await build(values)) as Row[];
  const { sql, bindings } = shape === null ? build(values).toSQL().toNative() : compiledSql(shape, values, build);
  return reads.all(sql, bindings);
}
