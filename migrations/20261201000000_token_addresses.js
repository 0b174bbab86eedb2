// Where each token was used from: one row per token and client address (as the daemon judged
// it, after trustProxy), with the first and the last time it was seen. Written by the daemons
// with the same coalescing as tokens.last_used_at; a few rows per token at most (the daemon
// prunes the oldest), and gone with the token (ON DELETE CASCADE: revoke+prune, handoff
// clean-up, account delete). Existing tokens need nothing: they simply have no rows yet.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('token_addresses', (t) => {
    t.integer('token_id').notNullable().references('id').inTable('tokens').onDelete('CASCADE');
    t.string('address', 64).notNullable(); // IPv4 or IPv6 text form
    t.string('first_seen_at', 30).notNullable();
    t.string('last_seen_at', 30).notNullable();
    // One row per address whatever the number of daemons writing it (insert-or-update).
    t.primary(['token_id', 'address']);
    t.index(['token_id', 'last_seen_at']);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('token_addresses');
}
