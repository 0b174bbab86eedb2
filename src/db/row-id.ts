// Row ids: PostgreSQL `integer` and SQLite rowids kept to its range; a larger number names no row and must not
// reach a query, which PostgreSQL would fail.
export const MAX_ROW_ID = 2_147_483_647;

/** The row id a text names ("12" names 12; "012", "0", "-1", "1.5", "1e3", "x" and ids past MAX_ROW_ID name none). */
export function parseRowId(text: string | undefined): number | null {
  if (text === undefined || !/^[1-9][0-9]{0,9}$/.test(text)) return null;
  const n = Number(text);
  return n <= MAX_ROW_ID ? n : null;
}

/** The first id of `insert(...).returning('id')`: `[{id}]` on PostgreSQL and recent SQLite, `[id]` on older drivers. */
export function insertedId(rows: unknown): number {
  const first = Array.isArray(rows) ? (rows[0] as unknown) : undefined;
  if (typeof first === 'number') return first;
  if (typeof first === 'object' && first !== null && 'id' in first && first.id !== undefined) return Number(first.id);
  throw new Error('insert returned no id');
}
