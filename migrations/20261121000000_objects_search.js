// Lower-cased copies of an object's identifier and title, for its case-insensitive search.
// SQLite's LOWER() folds only A-Z, so "über" would not find "Über"; actors, places and keywords
// keep a `name_lower` column for the same reason. Filled in code (String.prototype.toLowerCase)
// on insert, and here for the rows that exist already.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('objects', (t) => {
    t.string('identifier_lower', 255);
    t.string('title_lower', 1024);
  });
  const rows = await knex('objects').select('id', 'identifier', 'title');
  for (const row of rows) {
    await knex('objects')
      .where('id', row.id)
      .update({
        identifier_lower: String(row.identifier).toLowerCase(),
        title_lower: row.title === null ? null : String(row.title).toLowerCase(),
      });
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('objects', (t) => {
    t.dropColumn('identifier_lower');
    t.dropColumn('title_lower');
  });
}
