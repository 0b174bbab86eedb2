// The SQL of a catalogue list per dialect (docs/catalogue-scale.md, "The read path"): a page in an index's order
// (NULLs last ascending, ties by id) and a bounded count; search is LIKE, narrowed by FTS5 on SQLite.
import type { Knex } from 'knex';
import { isPg, type Db } from './dialect.js';
import { preparedReads } from './prepared-reads.js';
import { TEXT_HIT_ID, textTableOf } from './text-index.js';

type Row = Record<string, unknown>;

export interface SortKey {
  column: string;
  nullable: boolean;
  asc: boolean;
}

/** A row's place in the order: its sort value and id. */
export interface KeyPosition {
  value: string | null;
  id: number;
}

export interface ListFilter {
  table: string;
  /** Columns narrowed to one value each (a resource's own filters), bound as `equal:<column>`. */
  equal: readonly string[];
  /** The searched columns, each `LIKE` the value bound as `like`; null without a search. */
  like: readonly string[] | null;
  /** The text index finds the candidates (SQLite FTS5; its query bound as `match`). */
  indexed: boolean;
}

export interface PageShape {
  /** The columns read (the sort column among them: a cursor is made of it). */
  columns: readonly string[];
  key: SortKey;
  /** After a row (a cursor, bound as `after` and `afterId`): a non-null sort value, a NULL one, or none. */
  after: 'value' | 'null' | null;
  /** Read from the end, in the reverse order. */
  reverse: boolean;
  /** Rows skipped first (bound as `offset`); the page's size is bound as `limit`. */
  offset: boolean;
  /** The table's maintained row count comes along in each row as `list_total` (bound as `table`). */
  total: boolean;
}

/** The SQL and the names of the values its placeholders take, in order. */
export interface Statement {
  sql: string;
  params: readonly string[];
}

export const TOTAL_ALONG = 'list_total';

/** The maintained row count of a table (bound as `table`). */
export const COUNTER: Statement = { sql: 'SELECT n FROM catalog_counts WHERE name = ?', params: ['table'] };

const q = (name: string) => `"${name}"`;

/** The rows of `s` with `values` named by its params: on a prepared statement, or through knex. */
export async function rowsOf(db: Db, s: Statement, values: Readonly<Record<string, unknown>>): Promise<Row[]> {
  const bindings = s.params.map((name) => values[name]);
  const reads = preparedReads(db);
  if (reads) return reads.all(s.sql, bindings);
  const result = (await db.raw(s.sql, bindings as Knex.RawBinding[])) as Row[] | { rows: Row[] };
  return Array.isArray(result) ? result : result.rows;
}

/** The SQL of one page of a list. */
export function pageSql(db: Db, f: ListFilter, s: PageShape): Statement {
  const joined = f.indexed && s.key.column === 'id';
  const idColumn = joined ? TEXT_HIT_ID : q('id');
  const params: string[] = [];
  const select = s.columns.map(q);
  if (s.total) {
    select.push(`(${COUNTER.sql}) AS ${q(TOTAL_ALONG)}`);
    params.push('table');
  }
  const from = fromClause(f, joined, params);
  const where = conditions(f, joined, params);
  if (s.after !== null) {
    where.push(afterCondition(s.key, s.after, idColumn));
    params.push(...(s.key.column !== 'id' && s.after === 'value' ? ['after', 'afterId'] : ['afterId']));
  }
  const dir = s.key.asc !== s.reverse ? 'ASC' : 'DESC';
  const c = q(s.key.column);
  const order =
    s.key.column === 'id'
      ? `${idColumn} ${dir}`
      : `${s.key.nullable && !isPg(db) ? `(${c} IS NULL) ${dir}, ` : ''}${c} ${dir}, ${q('id')} ${dir}`;
  params.push('limit');
  if (s.offset) params.push('offset');
  const sql = `SELECT ${select.join(', ')} FROM ${from}${whereClause(where)} ORDER BY ${order} LIMIT ?`;
  return { sql: s.offset ? `${sql} OFFSET ?` : sql, params };
}

/** The SQL of the filter's count, stopping after `rows` rows; a search alone counts the text index, not the table. */
export function countSql(f: ListFilter, rows: number): Statement {
  const params: string[] = [];
  const bounded = (counted: string) => `SELECT count(*) AS n FROM (${counted} LIMIT ${rows}) AS bounded`;
  if (f.indexed && f.equal.length === 0) return { sql: bounded(textHits(f.table, '1', params)), params };
  const from = fromClause(f, f.indexed, params);
  const where = whereClause(conditions(f, f.indexed, params));
  return { sql: bounded(`SELECT 1 FROM ${from}${where}`), params };
}

/** `SELECT what` from the text index's rows matching the search (bound as `match`). */
function textHits(table: string, what: string, params: string[]): string {
  const fts = q(textTableOf(table));
  params.push('match');
  return `SELECT ${what} FROM ${fts} WHERE ${fts} MATCH ?`;
}

function fromClause(f: ListFilter, joined: boolean, params: string[]): string {
  if (!joined) return q(f.table);
  const hits = textHits(f.table, 'rowid AS text_id', params);
  return `${q(f.table)} JOIN (${hits}) AS text_hits ON ${q(f.table)}.${q('id')} = ${TEXT_HIT_ID}`;
}

/** The filter's conditions (their values pushed onto `params` in order). */
function conditions(f: ListFilter, joined: boolean, params: string[]): string[] {
  const where: string[] = [];
  for (const column of f.equal) {
    where.push(`${q(column)} = ?`);
    params.push(`equal:${column}`);
  }
  if (f.like === null) return where;
  if (f.indexed && !joined) where.push(`${q(f.table)}.${q('id')} IN (${textHits(f.table, 'rowid', params)})`);
  // Backslash escapes `%`, `_` and itself (query.ts likePattern): the search is a plain substring.
  where.push(`(${f.like.map((column) => `${q(column)} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
  for (let i = 0; i < f.like.length; i++) params.push('like');
  return where;
}

const whereClause = (where: readonly string[]) => (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '');

/** The rows after a position in the order of `key` (a keyset page). */
function afterCondition(key: SortKey, after: 'value' | 'null', idColumn: string): string {
  const op = key.asc ? '>' : '<';
  if (key.column === 'id') return `${idColumn} ${op} ?`;
  const c = q(key.column);
  const id = q('id');
  if (after === 'null') {
    // Ascending, the NULLs come last: only NULLs with a later id remain. Descending they come
    // first: later NULLs, then every non-NULL value.
    return key.asc ? `(${c} IS NULL AND ${id} ${op} ?)` : `((${c} IS NULL AND ${id} ${op} ?) OR ${c} IS NOT NULL)`;
  }
  return `((${c}, ${id}) ${op} (?, ?)${key.asc && key.nullable ? ` OR ${c} IS NULL` : ''})`;
}
