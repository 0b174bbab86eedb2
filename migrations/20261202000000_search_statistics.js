// PostgreSQL: a finer statistics sample of the columns a list search reads, so that the planner
// knows how common a searched word is. A `LIKE '%word%'` is estimated by matching the pattern
// against the column's histogram, which at the default target (100 entries) finds a word in 1 %
// of the rows about never: the planner took 100 rows for `müller` in 10,000 of 1,000,000 actors,
// and fetched and sorted all 10,000 for a first page of 25 (16.7 ms of backend CPU). With 1,000
// entries it estimates 8,000 and walks the primary key until it has 25 (0.7 ms); a rare word
// still goes through the trigram index. ANALYZE then takes 1.8 s at 1,000,000 actors instead of
// 0.3 s. SQLite plans these searches through its text index and keeps no such statistics.

const SEARCHED = {
  actors: ['name_lower'],
  places: ['name_lower'],
  keywords: ['name_lower'],
  objects: ['title_lower', 'identifier_lower'],
};

const isPg = (knex) => knex.client.config.client === 'pg';

/** @param {import('knex').Knex} knex */
async function setTarget(knex, target) {
  if (!isPg(knex)) return;
  for (const [table, columns] of Object.entries(SEARCHED)) {
    for (const column of columns) {
      await knex.raw('ALTER TABLE ?? ALTER COLUMN ?? SET STATISTICS ' + Number(target), [table, column]);
    }
    await knex.raw('ANALYZE ??', [table]);
  }
}

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await setTarget(knex, 1000);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await setTarget(knex, -1); // back to default_statistics_target
}
