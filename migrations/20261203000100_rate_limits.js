// PostgreSQL: the request counts of the rate limits (`limits.tokenRate`, `limits.anonymousRate`,
// a token's own rate, leaked-token reports), shared by every daemon on the database. The columns
// are those rate-limiter-flexible's PostgreSQL store reads and writes (src/db/request-counts.ts,
// which never creates the table itself): `key` is `<policy>:<rate>:<token id or address>`,
// `points` the requests counted in the window, `expire` its end (ms since the epoch). Rows are
// transient: each daemon deletes those that ended over an hour ago. UNLOGGED: a count is not
// worth a WAL record and its flush on every request of a limited client (measured: the logged
// table took the throughput of a limited token to a quarter of an unlimited one's, bench/RESULTS.md);
// after a crash PostgreSQL empties the table, and the windows start afresh. On SQLite the counts
// live in the daemon's memory, and this migration changes nothing.

const isPg = (knex) => knex.client.config.client === 'pg';

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (!isPg(knex)) return;
  await knex.raw(
    'CREATE UNLOGGED TABLE rate_limits (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)',
  );
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (!isPg(knex)) return;
  await knex.schema.dropTable('rate_limits');
}
