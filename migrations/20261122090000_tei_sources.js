// TEI exports that are never stale (issue 9). Every change to actors, places or keywords gives
// the kind a new random `version` in `tei_sources`, by a trigger: whichever door wrote the row
// (the API, `catalog load`, a SIP import, copy-database, a hand-made UPDATE), with or without
// touching `updated_at`, and in the same transaction as the change. A stored export remembers the
// version it was built from; a GET that finds another version rebuilds it first.
//
// Random rather than counted, so a version never coincides with one of another database (an
// export copied by copy-database is rebuilt, never trusted).
//
// PostgreSQL: a deferred constraint trigger, so the version row is locked only while the
// writing transaction commits. An immediate trigger would hold that row from the first write
// to the commit, and two transactions creating overlapping keywords could then deadlock (each
// waiting on the other's uncommitted keyword and on the version row). Row-level (constraint
// triggers cannot be statement-level), but the version changes once per transaction.
// SQLite: plain row-level triggers; SQLite has one writer at a time, so nothing can deadlock.
//
// tei_exports gains what conditional GET needs: the content hash (ETag), the time the content
// last changed (Last-Modified), and a revision for compare-and-set stores (two daemons
// rebuilding at once never overwrite each other blindly).

const KINDS = ['actors', 'places', 'keywords'];
const EVENTS = ['insert', 'update', 'delete'];

const isPg = (knex) => knex.client.config.client === 'pg';

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('tei_sources', (t) => {
    t.string('kind', 16).primary(); // actors | places | keywords: also the table's name
    t.string('version', 32).notNullable();
    t.bigInteger('changed_by_xid'); // PostgreSQL: the transaction that set version last
  });
  const { randomBytes } = await import('node:crypto');
  await knex('tei_sources').insert(KINDS.map((kind) => ({ kind, version: randomBytes(16).toString('hex') })));

  await knex.schema.alterTable('tei_exports', (t) => {
    t.string('source_version', 32); // tei_sources.version the document was built from
    t.string('format', 32); // the generator's format; another one is rebuilt
    t.string('etag', 64); // content hash, the strong ETag
    t.string('modified_at', 30); // when the content last changed (Last-Modified)
    t.integer('revision').notNullable().defaultTo(0);
  });

  if (isPg(knex)) {
    await knex.raw(`
      CREATE OR REPLACE FUNCTION tei_source_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE format(
          'UPDATE %I.tei_sources SET version = md5(random()::text || clock_timestamp()::text), changed_by_xid = txid_current()
             WHERE kind = $1 AND changed_by_xid IS DISTINCT FROM txid_current()',
          TG_TABLE_SCHEMA)
        USING TG_TABLE_NAME;
        RETURN NULL;
      END
      $$`);
    for (const kind of KINDS) {
      await knex.raw(
        `CREATE CONSTRAINT TRIGGER ${kind}_tei_source AFTER INSERT OR UPDATE OR DELETE ON ${kind}
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE PROCEDURE tei_source_changed()`,
      );
    }
  } else {
    for (const kind of KINDS) {
      for (const event of EVENTS) {
        await knex.raw(
          `CREATE TRIGGER ${kind}_tei_source_${event} AFTER ${event.toUpperCase()} ON ${kind}
           BEGIN UPDATE tei_sources SET version = lower(hex(randomblob(16))) WHERE kind = '${kind}'; END`,
        );
      }
    }
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (isPg(knex)) {
    for (const kind of KINDS) await knex.raw(`DROP TRIGGER IF EXISTS ${kind}_tei_source ON ${kind}`);
    await knex.raw('DROP FUNCTION IF EXISTS tei_source_changed()');
  } else {
    for (const kind of KINDS)
      for (const event of EVENTS) await knex.raw(`DROP TRIGGER IF EXISTS ${kind}_tei_source_${event}`);
  }
  await knex.schema.alterTable('tei_exports', (t) => {
    t.dropColumn('source_version');
    t.dropColumn('format');
    t.dropColumn('etag');
    t.dropColumn('modified_at');
    t.dropColumn('revision');
  });
  await knex.schema.dropTable('tei_sources');
}
