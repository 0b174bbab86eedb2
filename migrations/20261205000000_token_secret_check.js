// A short fingerprint of each token's secret (src/domain/tokens/hash.ts, `secretCheck`): a leak
// report holding many values for one token id checks with the KDF only the values whose
// fingerprint matches. NULL for tokens made before this migration until their next successful
// use writes it; a report checks every value of such a token with the KDF.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('tokens', (t) => {
    t.string('secret_check', 8);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  // SQLite's own DROP COLUMN: knex would copy the table, and dropping the old `tokens` would take
  // the rows of the tables that refer to it (ON DELETE CASCADE) along.
  if (knex.client.config.client === 'pg') await knex.schema.alterTable('tokens', (t) => t.dropColumn('secret_check'));
  else await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['tokens', 'secret_check']);
}
