// Running daemons on PostgreSQL, for change acknowledgements: each daemon heartbeats its row
// and records the authorisation generation it has adopted; the CLI waits, after committing an
// access change, until every live daemon has adopted it (see src/db/pg-lease.ts).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('daemons', (t) => {
    t.string('id', 36).primary();
    t.string('host', 255).notNullable();
    t.integer('pid').notNullable();
    t.bigInteger('acked_generation').notNullable();
    t.bigInteger('seen_ms').notNullable().index(); // the database's clock, ms since the epoch
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('daemons');
}
