// The archive's catalogue: actors, places, keywords, objects, SIP submissions, AI-cataloging
// usage records and stored TEI exports. JSON-valued fields (label, alternative_names) are kept
// as JSON text so the same schema serves SQLite and PostgreSQL.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('actors', (t) => {
    t.increments('id');
    t.string('type', 32).notNullable();
    t.string('name', 255).notNullable();
    t.string('name_lower', 255).notNullable().index(); // for case-insensitive search on both dialects
    t.text('label'); // JSON object locale -> string
    t.text('alternative_names'); // JSON array of strings
    t.string('date_start', 32);
    t.string('date_end', 32);
    t.text('comment');
    t.string('gnd', 64);
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
  });

  await knex.schema.createTable('places', (t) => {
    t.increments('id');
    t.string('name', 255).notNullable();
    t.string('name_lower', 255).notNullable().index();
    t.text('label');
    t.string('city', 255);
    t.string('state', 255);
    t.string('address', 512);
    t.string('country_code', 2);
    t.string('location', 64); // "<lat> <lon>"
    t.text('alternative_names');
    t.text('comment');
    t.string('gnd', 64);
    t.string('geonames', 32);
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
  });

  await knex.schema.createTable('keywords', (t) => {
    t.increments('id');
    t.string('name', 255).notNullable();
    t.string('name_lower', 255).notNullable().unique();
    t.text('label');
    t.string('gnd', 64);
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
  });

  await knex.schema.createTable('objects', (t) => {
    t.increments('id');
    t.string('identifier', 255).notNullable().unique();
    t.string('title', 1024);
    t.string('status', 16).notNullable(); // ingesting | ingested | failed
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
  });

  await knex.schema.createTable('object_keywords', (t) => {
    t.integer('object_id').notNullable().references('id').inTable('objects').onDelete('CASCADE');
    t.integer('keyword_id').notNullable().references('id').inTable('keywords').onDelete('CASCADE');
    t.primary(['object_id', 'keyword_id']);
  });

  await knex.schema.createTable('sip_submissions', (t) => {
    t.increments('id');
    t.integer('object_id').notNullable().references('id').inTable('objects').onDelete('CASCADE');
    t.string('status', 16).notNullable(); // received | confirmed | failed
    t.string('file', 255).notNullable(); // path relative to dataDir
    t.bigInteger('size').notNullable();
    t.string('sha256', 64).notNullable();
    t.text('reason');
    t.integer('token_id'); // which token submitted it (its row id, never a value)
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
  });

  await knex.schema.createTable('ai_cataloging_usage', (t) => {
    t.increments('id');
    t.string('provider', 64).notNullable();
    t.string('model', 128).notNullable();
    t.bigInteger('tokens_in').notNullable();
    t.bigInteger('tokens_out').notNullable();
    t.double('cost_chf').notNullable();
    t.boolean('success').notNullable();
    t.integer('latency_ms');
    t.string('profile_slug', 128);
    t.string('entry_uuid', 36);
    t.string('source', 32).notNullable();
    t.string('created_at', 30).notNullable();
  });

  await knex.schema.createTable('tei_exports', (t) => {
    t.string('kind', 16).primary(); // actors | places | keywords
    t.text('document').notNullable();
    t.integer('entries').notNullable();
    t.string('generated_at', 30).notNullable();
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const table of [
    'tei_exports',
    'ai_cataloging_usage',
    'sip_submissions',
    'object_keywords',
    'objects',
    'keywords',
    'places',
    'actors',
  ]) {
    await knex.schema.dropTable(table);
  }
}
