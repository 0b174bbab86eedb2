// Least privilege for tokens (docs/security.md): what a token may do, from where, and how often.
// All three are nullable text in their canonical form, and NULL keeps today's behaviour, so every
// existing token needs nothing:
// - `scopes`: a comma-separated list of scopes (src/domain/scopes.ts); NULL is every right of
//   the token's account (`*`).
// - `allow_from`: comma-separated CIDR blocks the token is accepted from; NULL is anywhere.
// - `rate_limit`: `N/minute` or `N/hour` (src/rate-limit.ts); NULL is no limit of
//   its own.
// `token_address_refusals` makes a refusal from an address outside `allow_from` an audit entry
// once per token, address and UTC day, however many daemons refuse it: the first to insert the
// row writes the entry (insert-or-ignore on the primary key). Gone with the token.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('tokens', (t) => {
    t.text('scopes');
    t.text('allow_from');
    t.text('rate_limit');
  });
  await knex.schema.createTable('token_address_refusals', (t) => {
    t.integer('token_id').notNullable().references('id').inTable('tokens').onDelete('CASCADE');
    t.string('address', 64).notNullable(); // IPv4 or IPv6 text form, as the daemon judged it
    t.string('day', 10).notNullable(); // YYYY-MM-DD, UTC
    t.primary(['token_id', 'address', 'day']);
  });
}

/**
 * SQLite's own DROP COLUMN: knex would copy the table without the columns, and dropping the old
 * `tokens` would take the rows of the tables that refer to it (ON DELETE CASCADE) along.
 * @param {import('knex').Knex} knex
 */
async function dropColumns(knex, table, columns) {
  if (knex.client.config.client === 'pg') await knex.schema.alterTable(table, (t) => t.dropColumns(...columns));
  else for (const column of columns) await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, column]);
}

/**
 * The release before this one knows no restrictions: a narrowed token would get every right of its
 * account back. So rolling back revokes every token narrowed by scopes or addresses (a rate alone
 * grants nothing), and moves the access generation as every revocation does.
 * @param {import('knex').Knex} knex
 */
export async function down(knex) {
  const revoked = await knex('tokens')
    .whereNull('revoked_at')
    .where((q) => {
      q.whereNotNull('scopes').orWhereNotNull('allow_from');
    })
    .update({ revoked_at: new Date().toISOString() });
  if (revoked > 0) await knex('auth_state').where('id', 1).increment('generation', 1);
  await knex.schema.dropTable('token_address_refusals');
  await dropColumns(knex, 'tokens', ['scopes', 'allow_from', 'rate_limit']);
}
