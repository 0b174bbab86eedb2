// PostgreSQL: the TEI source trigger (20261122090000_tei_sources.js) changes a kind's version once
// per transaction, but as a deferred row trigger it still fires once per written row at commit,
// and each firing ran its UPDATE: a `catalog load` of a million actors spent a minute committing.
// Now the first firing of a transaction notes its transaction id in a transaction-local setting
// (undone with a rolled-back savepoint, like the UPDATE it stands for), and the later firings of
// the same transaction return at once. SQLite: nothing changes.

const isPg = (knex) => knex.client.config.client === 'pg';

const UPDATE = `EXECUTE format(
    'UPDATE %I.tei_sources SET version = md5(random()::text || clock_timestamp()::text), changed_by_xid = txid_current()
       WHERE kind = $1 AND changed_by_xid IS DISTINCT FROM txid_current()',
    TG_TABLE_SCHEMA)
  USING TG_TABLE_NAME;`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (!isPg(knex)) return;
  await knex.raw(`
    CREATE OR REPLACE FUNCTION tei_source_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      noted text := 'archivectl.tei_changed_' || TG_TABLE_NAME;
    BEGIN
      IF current_setting(noted, true) = txid_current()::text THEN
        RETURN NULL;
      END IF;
      ${UPDATE}
      PERFORM set_config(noted, txid_current()::text, true);
      RETURN NULL;
    END
    $$`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (!isPg(knex)) return;
  await knex.raw(`
    CREATE OR REPLACE FUNCTION tei_source_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${UPDATE}
      RETURN NULL;
    END
    $$`);
}
