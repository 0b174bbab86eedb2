// Accounts, API tokens, settings, the audit log and the authorisation generation counter.
// Timestamps are ISO 8601 UTC strings: they sort and compare the same on SQLite and PostgreSQL.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('accounts', (t) => {
    t.increments('id');
    t.string('username', 64).notNullable().unique();
    t.string('role', 32).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
  });

  await knex.schema.createTable('tokens', (t) => {
    t.increments('id');
    t.string('selector', 8).notNullable().unique(); // the public id
    t.integer('account_id').notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('kind', 16).notNullable(); // regular | legacy | handoff
    t.string('secret_hash', 200).notNullable(); // scrypt-kdf key, base64; never the value
    t.string('expires', 10); // YYYY-MM-DD as given, null when none
    t.string('expires_at', 30); // first instant at which the token is refused
    t.string('created_at', 30).notNullable();
    t.string('last_used_at', 30);
    t.string('revoked_at', 30);
    t.index(['account_id']);
  });
  // Names are unique among an account's non-revoked tokens (docs/cli.md#tokens).
  await knex.raw('CREATE UNIQUE INDEX tokens_account_live_name ON tokens (account_id, name) WHERE revoked_at IS NULL');

  // Every legacy token ever imported, so that re-running an import never brings back a token
  // that was revoked and pruned since.
  await knex.schema.createTable('legacy_imports', (t) => {
    t.string('selector', 8).primary();
    t.string('secret_hash', 200).notNullable();
    t.string('imported_at', 30).notNullable();
  });

  await knex.schema.createTable('settings', (t) => {
    t.string('key', 64).primary();
    t.string('value', 255).notNullable();
  });

  await knex.schema.createTable('audit_log', (t) => {
    t.increments('id');
    t.string('at', 30).notNullable().index();
    t.string('actor', 64).notNullable();
    t.string('action', 64).notNullable();
    t.string('target', 255).notNullable();
  });

  // One row whose counter moves with every change that can withdraw access (revocation, role
  // change, account deletion, settings). Daemons compare it to decide whether cached
  // authorisation is still current.
  await knex.schema.createTable('auth_state', (t) => {
    t.integer('id').primary();
    t.bigInteger('generation').notNullable();
  });
  await knex('auth_state').insert({ id: 1, generation: 0 });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('auth_state');
  await knex.schema.dropTable('audit_log');
  await knex.schema.dropTable('settings');
  await knex.schema.dropTable('legacy_imports');
  await knex.schema.dropTable('tokens');
  await knex.schema.dropTable('accounts');
}
