// The tables a bulk write filled, made ready to serve (PostgreSQL; docs/catalogue-scale.md, "Bulk
// load"): without fresh statistics the planner reads every hit of a search through the trigram
// bitmap (bench/RESULTS.md), and VACUUM empties the GIN pending lists every search reads whole. Autovacuum gets there minutes later, or never.
// SQLite's plans here are fixed by the query shapes (an index per sort, the FTS join): left alone.
import { isPg, type Db } from './dialect.js';

/**
 * Called once the data has committed (VACUUM runs outside a transaction), so a failure here loses
 * nothing: it is a warning that says what to run, not an error of the load.
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
