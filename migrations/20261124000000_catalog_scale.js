// Catalogue reads at archive scale (issue 11): every list, sort, search and total served by an
// index on both dialects.
//
// - Sort indexes: one per accepted sortField, `(column, id)`, so `ORDER BY column, id` (and its
//   reverse) is an index walk. PostgreSQL puts NULLs last ascending and first descending, the
//   order the API answers, so a plain index serves the nullable columns too. SQLite puts NULLs
//   first; its nullable sort columns get an index on `(column IS NULL, column, id)`, the exact
//   expression the list orders by there.
// - Text search: SQLite FTS5 tables with the trigram tokenizer (`<table>_text`, contentless with
//   deletes, holding the lower-cased copies the API searches), kept in sync by triggers;
//   PostgreSQL pg_trgm GIN indexes on the same values, which its planner uses for
//   `LIKE '%…%'`. Creating the extension needs the right to: when it cannot be created the
//   migration goes on without those indexes and PostgreSQL search stays a scan
//   (docs/catalogue-scale.md says how to add them later).
// - Totals: `catalog_counts` holds each table's row count, kept by triggers, so an unfiltered
//   list's `meta.total` is exact without counting.
//
// SQLite drops a table's triggers when knex rebuilds the table (some alterTable changes do): a
// later migration that rebuilds actors, places, keywords or objects must create these again.

/** Sort columns by table: [column, nullable]. The lower-cased copies stand for name, identifier, title. */
const SORTS = {
  actors: [
    ['name_lower', false],
    ['type', false],
    ['date_start', true],
    ['date_end', true],
    ['created_at', false],
    ['updated_at', false],
  ],
  places: [
    ['name_lower', false],
    ['city', true],
    ['state', true],
    ['country_code', true],
    ['created_at', false],
    ['updated_at', false],
  ],
  keywords: [
    ['name_lower', false],
    ['created_at', false],
    ['updated_at', false],
  ],
  objects: [
    ['identifier_lower', false],
    ['title_lower', true],
    ['status', false],
    ['created_at', false],
  ],
};

/**
 * Searched values by table: text column → [the row's column, lower-cased in SQL]. The alternative
 * names are JSON text that reconciliation searches as `LOWER(alternative_names)`.
 */
const TEXT = {
  actors: { name: ['name_lower', false], alt: ['alternative_names', true] },
  places: { name: ['name_lower', false], alt: ['alternative_names', true] },
  keywords: { name: ['name_lower', false] },
  objects: { title: ['title_lower', false], identifier: ['identifier_lower', false] },
};

/** The SQL of a searched value, of `row` (`new.`) or of the table. */
const valueOf = ([column, lower], row = '') => (lower ? `lower(${row}${column})` : `${row}${column}`);

/** Indexes these replace: `(name_lower)` alone does not order ties by id on PostgreSQL. */
const REPLACED = ['actors_name_lower_index', 'places_name_lower_index'];

const isPg = (knex) => knex.client.config.client === 'pg';

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const pg = isPg(knex);
  for (const name of REPLACED) await knex.raw(`DROP INDEX IF EXISTS ${name}`);
  for (const [table, sorts] of Object.entries(SORTS)) {
    for (const [column, nullable] of sorts) {
      const key = nullable && !pg ? `(${column} IS NULL), ${column}, id` : `${column}, id`;
      await knex.raw(`CREATE INDEX ${table}_sort_${column} ON ${table} (${key})`);
    }
  }
  await knex.schema.createTable('catalog_counts', (t) => {
    t.string('name', 32).primary();
    t.bigInteger('n').notNullable();
  });
  for (const table of Object.keys(SORTS)) {
    await knex.raw(`INSERT INTO catalog_counts (name, n) SELECT '${table}', count(*) FROM ${table}`);
  }
  if (pg) await upPg(knex);
  else await upSqlite(knex);
}

/** @param {import('knex').Knex} knex */
async function upSqlite(knex) {
  for (const [table, text] of Object.entries(TEXT)) {
    const columns = Object.keys(text).join(', ');
    const values = (row) =>
      Object.values(text)
        .map((v) => valueOf(v, row))
        .join(', ');
    await knex.raw(
      `CREATE VIRTUAL TABLE ${table}_text USING fts5(${columns}, content='', contentless_delete=1, ` +
        `tokenize='trigram case_sensitive 1')`,
    );
    await knex.raw(`INSERT INTO ${table}_text (rowid, ${columns}) SELECT id, ${values('')} FROM ${table}`);
    const insert = `INSERT INTO ${table}_text (rowid, ${columns}) VALUES (new.id, ${values('new.')});`;
    const count = (sign) => `UPDATE catalog_counts SET n = n ${sign} 1 WHERE name = '${table}';`;
    const watched = Object.values(text).map(([column]) => column);
    await knex.raw(`CREATE TRIGGER ${table}_scale_insert AFTER INSERT ON ${table} BEGIN ${insert} ${count('+')} END`);
    await knex.raw(
      `CREATE TRIGGER ${table}_scale_update AFTER UPDATE OF ${watched.join(', ')} ON ${table} ` +
        `BEGIN DELETE FROM ${table}_text WHERE rowid = old.id; ${insert} END`,
    );
    await knex.raw(
      `CREATE TRIGGER ${table}_scale_delete AFTER DELETE ON ${table} ` +
        `BEGIN DELETE FROM ${table}_text WHERE rowid = old.id; ${count('-')} END`,
    );
  }
}

/** @param {import('knex').Knex} knex */
async function upPg(knex) {
  await knex.raw(`
    CREATE FUNCTION catalog_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE catalog_counts SET n = n + (SELECT count(*) FROM changed_rows) WHERE name = TG_TABLE_NAME;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION catalog_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE catalog_counts SET n = n - (SELECT count(*) FROM changed_rows) WHERE name = TG_TABLE_NAME;
      RETURN NULL;
    END $$`);
  for (const table of Object.keys(SORTS)) {
    // Per statement: a batched insert of 1,000 rows updates the counter once.
    await knex.raw(
      `CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS changed_rows ` +
        'FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_inserted()',
    );
    await knex.raw(
      `CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS changed_rows ` +
        'FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_deleted()',
    );
  }
  // In a savepoint: without the right to create the extension the migration still applies.
  await knex.raw('SAVEPOINT pg_trgm');
  try {
    await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await knex.raw('RELEASE SAVEPOINT pg_trgm');
  } catch {
    await knex.raw('ROLLBACK TO SAVEPOINT pg_trgm');
  }
  // The extension exists once per database, in the schema of whoever created it first: another
  // installation in a schema of its own (search_path) names its operator class by that schema.
  const { rows } = await knex.raw(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`,
  );
  if (rows.length === 0) return;
  const opclass = `"${String(rows[0].schema).replace(/"/g, '""')}".gin_trgm_ops`;
  for (const [table, text] of Object.entries(TEXT)) {
    for (const [column, value] of Object.entries(text)) {
      await knex.raw(`CREATE INDEX ${table}_text_${column} ON ${table} USING gin ((${valueOf(value)}) ${opclass})`);
    }
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  const pg = isPg(knex);
  for (const [table, sorts] of Object.entries(SORTS)) {
    for (const [column] of sorts) await knex.raw(`DROP INDEX IF EXISTS ${table}_sort_${column}`);
    if (pg) {
      await knex.raw(`DROP TRIGGER IF EXISTS ${table}_count_insert ON ${table}`);
      await knex.raw(`DROP TRIGGER IF EXISTS ${table}_count_delete ON ${table}`);
      for (const column of Object.keys(TEXT[table])) await knex.raw(`DROP INDEX IF EXISTS ${table}_text_${column}`);
    } else {
      for (const op of ['insert', 'update', 'delete']) await knex.raw(`DROP TRIGGER IF EXISTS ${table}_scale_${op}`);
      await knex.raw(`DROP TABLE IF EXISTS ${table}_text`);
    }
  }
  if (pg) {
    await knex.raw('DROP FUNCTION IF EXISTS catalog_counts_inserted()');
    await knex.raw('DROP FUNCTION IF EXISTS catalog_counts_deleted()');
  }
  await knex.schema.dropTable('catalog_counts');
  await knex.raw('CREATE INDEX actors_name_lower_index ON actors (name_lower)');
  await knex.raw('CREATE INDEX places_name_lower_index ON places (name_lower)');
}
