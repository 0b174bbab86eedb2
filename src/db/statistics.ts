// The tables a bulk write filled, made ready to serve (PostgreSQL). The planner picks a search's
// plan (the trigram index's bitmap, or a walk of the primary key that stops after a page) from
// the table's statistics; right after a large load it has none, or stale ones, and picks the
// bitmap over every hit: a common word cost 131 ms at 1,000,000 actors before ANALYZE, 7 ms after.
// VACUUM empties the trigram indexes' pending lists (GIN's fast update keeps new rows in a list
// every search reads whole: 229 pages after a million rows, about 8 ms of CPU a search) and marks
// pages all-visible. Autovacuum gets there minutes later, or never where it is off. SQLite's plans
// here are fixed by the query shapes (an index per sort, the FTS join): it is left alone.
import { isPg, type Db } from './dialect.js';

/**
 * VACUUM (ANALYZE) of `tables` (PostgreSQL; a no-op on SQLite). Called after the data has
 * committed (VACUUM runs outside a transaction), so a failure here loses nothing: it is a
 * warning that says what to run, not an error of the load.
 */
export async function refreshStatistics(db: Db, tables: readonly string[]): Promise<void> {
  if (!isPg(db) || tables.length === 0) return;
  try {
    await db.raw(`VACUUM (ANALYZE) ${tables.map(() => '??').join(', ')}`, [...tables]);
  } catch (err) {
    process.emitWarning(
      `the data is in; tidying the tables for searches failed (${(err as Error).message}): ` +
        `run VACUUM (ANALYZE) ${tables.join(', ')} before heavy searches`,
    );
  }
}
