// The daily expiry notice (tokens that end within 14 days and are still in use) is logged
// once a day per installation, not once per daemon: the first daemon to insert the day's row
// writes it, the others find the row there (insert-or-ignore on the primary key).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('token_notices', (t) => {
    t.string('day', 10).primary(); // YYYY-MM-DD, UTC
    t.string('claimed_by', 128).notNullable(); // the daemon that wrote it (host, pid, random id)
    t.string('claimed_at', 30).notNullable();
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('token_notices');
}
