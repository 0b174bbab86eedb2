// Fields of Anton's request shapes that the catalogue keeps (issue 9): name variants and
// abbreviations of actors and places (JSON arrays of strings, like alternative_names), and the
// identifiers of two more BEACON providers: SIKART (actors) and Wikipedia (places, the
// article's URL). All nullable, so existing rows need nothing.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('actors', (t) => {
    t.text('variants');
    t.text('abbreviations');
    t.string('sikart', 32);
  });
  await knex.schema.alterTable('places', (t) => {
    t.text('variants');
    t.text('abbreviations');
    t.string('wikipedia', 1024);
  });
}

/**
 * SQLite's own DROP COLUMN: knex would copy the table without the columns, and the copy loses
 * the table's triggers (tei_sources' version triggers on actors and places).
 * @param {import('knex').Knex} knex
 */
async function dropColumns(knex, table, columns) {
  if (knex.client.config.client === 'pg') await knex.schema.alterTable(table, (t) => t.dropColumns(...columns));
  else for (const column of columns) await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, column]);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await dropColumns(knex, 'actors', ['variants', 'abbreviations', 'sikart']);
  await dropColumns(knex, 'places', ['variants', 'abbreviations', 'wikipedia']);
}
