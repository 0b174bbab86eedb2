// The `cursor` of a keyset page: the last row's sort value and id, with the sort it belongs to,
// as base64url JSON. It is opaque to clients; a cursor of another sort is refused, not misread.
import type { KeyPosition } from '../../../db/list-sql.js';

interface CursorSort {
  sortField: string;
  sortAsc: boolean;
}

export function encodeCursor(q: CursorSort, column: string, row: Record<string, unknown>): string {
  const value = column === 'id' ? null : row[column];
  const body = [q.sortField, q.sortAsc ? 1 : 0, typeof value === 'string' ? value : null, Number(row.id)];
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The position a cursor names, or null when it is no cursor of this sort. */
export function decodeCursor(text: string, sortField: string, sortAsc: boolean): KeyPosition | null {
  if (text.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(body) || body.length !== 4) return null;
  const [field, asc, value, id] = body as unknown[];
  if (field !== sortField || asc !== (sortAsc ? 1 : 0)) return null;
  if (value !== null && typeof value !== 'string') return null;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return null;
  return { value, id };
}
