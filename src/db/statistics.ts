// Planner statistics after a bulk write. PostgreSQL chooses between a catalogue search's plans
// (the trigram index's bitmap, or a walk of the primary key that stops after a page) from the
// table's statistics; right after a large load it has none, or ones from when the table was
// small, and picks the bitmap over every hit: a common word cost 131 ms at 1,000,000 actors
// before ANALYZE and 7 ms after it. Autovacuum would get there, minutes later; a load should
// leave the tables ready to serve. SQLite's plans here are fixed by the query shapes (an index
// per sort, the FTS join), so it keeps no statistics and is left alone.
import { isPg, type Db } from './dialect.js';

/**
 * Refreshes the planner's statistics of `tables` (PostgreSQL; a no-op on SQLite). Called after
 * the data has committed, so a failure here loses nothing: it is a warning that says what to
 * run, not an error of the load.
 */
export async function refreshStatistics(db: Db, tables: readonly string[]): Promise<void> {
  if (!isPg(db) || tables.length === 0) return;
  try {
    await db.raw(`ANALYZE ${tables.map(() => '??').join(', ')}`, [...tables]);
  } catch (err) {
    process.emitWarning(
      `the data is in; refreshing the planner's statistics failed (${(err as Error).message}): ` +
        `run ANALYZE ${tables.join(', ')} before heavy searches`,
    );
  }
}
