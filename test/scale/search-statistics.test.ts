// The search_statistics migration: on PostgreSQL the columns a list search reads keep a
// statistics sample of 1,000 entries (the planner's estimate of how common a searched word is
// comes from it), and its down() gives them the server's default back. Which plan that buys at a
// million rows is measured by `BENCH_ONLY=scale`, not here. SQLite keeps no such statistics.
import path from 'node:path';
import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { IS_PG, REPO_ROOT, useSandbox, withSandboxDb } from '../helpers/cli.js';

const SEARCHED = [
  ['actors', 'name_lower'],
  ['keywords', 'name_lower'],
  ['objects', 'identifier_lower'],
  ['objects', 'title_lower'],
  ['places', 'name_lower'],
] as const;

const skip = IS_PG ? null : 'PostgreSQL only (runs in the PostgreSQL pass)';

/** Each searched column's statistics target; null where the server's default applies. */
async function targets(db: Knex): Promise<(number | null)[]> {
  const out: (number | null)[] = [];
  for (const [table, column] of SEARCHED) {
    const r = await db.raw<{ rows: { n: number | null }[] }>(
      'SELECT attstattarget AS n FROM pg_attribute WHERE attrelid = ?::regclass AND attname = ?',
      [table, column],
    );
    const n = r.rows[0]?.n ?? null;
    out.push(n === null || Number(n) < 0 ? null : Number(n));
  }
  return out;
}

describe.skipIf(skip !== null)(`statistics of the searched columns${skip ? ` — skipped: ${skip}` : ''}`, () => {
  const cli = useSandbox();

  it('are sampled 1,000 entries deep after migrate, and back to the default after down()', async () => {
    await withSandboxDb(cli, async (db) => {
      expect(await targets(db)).toEqual(SEARCHED.map(() => 1000));
      const file = path.join(REPO_ROOT, 'migrations', '20261202000000_search_statistics.js');
      const migration = (await import(file)) as { down: (k: Knex) => Promise<void>; up: (k: Knex) => Promise<void> };
      await migration.down(db);
      expect(await targets(db)).toEqual(SEARCHED.map(() => null));
      await migration.up(db);
      expect(await targets(db)).toEqual(SEARCHED.map(() => 1000));
    });
  });
});
