// What the last-use recorder wrote for a token, read straight from its tables.
import type { Knex } from 'knex';

/** The instant the recorder's tests start at, and an instant as the tables hold it. */
export const T0 = Date.parse('2026-11-20T12:00:00.000Z');
export const iso = (ms: number) => new Date(ms).toISOString();
/** `count` addresses that sort as they are numbered: 198.51.100.101, .102, … (up to 155). */
export const numbered = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) => `198.51.100.${100 + from + i}`);

export async function lastUsedAt(db: Knex, id: number): Promise<string | null> {
  const row = await db('tokens').where('id', id).first<{ last_used_at: string | null }>('last_used_at');
  return row.last_used_at;
}

/** The token's address rows: address -> [first seen, last seen]. */
export async function addressRows(db: Knex, id: number): Promise<Record<string, [string, string]>> {
  const rows = await db('token_addresses')
    .where('token_id', id)
    .select<{ address: string; first_seen_at: string; last_seen_at: string }[]>(
      'address',
      'first_seen_at',
      'last_seen_at',
    );
  return Object.fromEntries(rows.map((r) => [r.address, [r.first_seen_at, r.last_seen_at]]));
}
