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

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('actors', (t) => {
    t.dropColumn('variants');
    t.dropColumn('abbreviations');
    t.dropColumn('sikart');
  });
  await knex.schema.alterTable('places', (t) => {
    t.dropColumn('variants');
    t.dropColumn('abbreviations');
    t.dropColumn('wikipedia');
  });
}
