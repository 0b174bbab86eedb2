// After a bulk write on PostgreSQL, ANALYZE and VACUUM give searches fresh plans and empty GIN pending lists;
// SQLite's plans are fixed by the query shapes.
import { isPg, type Db } from './dialect.js';

/** Called after the data has committed: a failure is a warning saying what to run, not an error of the load. */
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
