// Copies a whole installation from one database to another (the move from SQLite to PostgreSQL).
// Rows keep their ids; the target must be freshly migrated and empty; everything is written in one
// transaction, so a failed copy leaves the target as empty as it was.
import { conflict } from '../errors.js';
import { isPg, type Db } from './dialect.js';
import { migrateLatest } from './migrate.js';
import { requireExpectedSchema } from './schema-state.js';

/** Every table copied, parents before children (foreign keys hold at each insert). */
export const TABLES = [
  'accounts',
  'tokens',
  'token_addresses',
  'token_notices',
  'token_address_refusals',
  'legacy_imports',
  'settings',
  'audit_log',
  'auth_state',
  'actors',
  'places',
  'keywords',
  'objects',
  'object_keywords',
  'sip_submissions',
  'ai_cataloging_usage',
  'tei_exports',
] as const;

/** The tables not copied, each with its reason; copy-database.test fails on a table in neither list. */
export const NOT_COPIED: readonly { table: RegExp; why: string }[] = [
  { table: /^knex_migrations(_lock)?$/, why: "the target's own migrations" },
  { table: /^sqlite_sequence$/, why: "SQLite's own" },
  { table: /^catalog_counts$/, why: "kept by the catalogue tables' triggers as rows arrive" },
  { table: /^[a-z_]+_text(_[a-z]+)?$/, why: "SQLite's text indexes of the catalogue tables, kept by triggers" },
  { table: /^tei_sources$/, why: 'versions the migration makes; the copied exports are rebuilt when they differ' },
  { table: /^daemons$/, why: 'the daemons running on a database, which register themselves' },
  { table: /^rate_limits$/, why: 'request counts of the current window, PostgreSQL only' },
];

const ORDER: Partial<Record<(typeof TABLES)[number], string[]>> = {
  token_addresses: ['token_id', 'address'],
  token_notices: ['day'],
  token_address_refusals: ['token_id', 'address', 'day'],
  legacy_imports: ['selector'],
  settings: ['key'],
  object_keywords: ['object_id', 'keyword_id'],
  tei_exports: ['kind'],
};

const CHUNK = 500;

type CopyCounts = Record<(typeof TABLES)[number], number>;

export async function copyDatabase(
  source: Db,
  target: Db,
  progress?: (table: string, rows: number) => void,
): Promise<CopyCounts> {
  // The source is only read, at the schema this release expects; the target is a new database.
  await requireExpectedSchema(source, 'the source database');
  await migrateLatest(target);
  for (const table of TABLES) {
    if (table === 'auth_state') continue; // created with its one row by the migration
    const row = (await target(table).count({ n: '*' }).first()) as { n: number | string };
    if (Number(row.n) > 0)
      throw conflict(`the target database is not empty (table ${table} has rows); copy only into a new database`);
  }
  const counts = {} as CopyCounts;
  await target.transaction(async (trx) => {
    await trx('auth_state').delete();
    for (const table of TABLES) {
      const order = ORDER[table] ?? ['id'];
      let copied = 0;
      for (let offset = 0; ; offset += CHUNK) {
        const rows = await source(table).select('*').orderBy(order).limit(CHUNK).offset(offset);
        if (rows.length === 0) break;
        await trx(table).insert(rows);
        copied += rows.length;
        progress?.(table, copied);
        if (rows.length < CHUNK) break;
      }
      counts[table] = copied;
    }
    // Explicit ids leave PostgreSQL's sequences behind; move them past the copied rows.
    for (const table of TABLES) {
      if (!isPg(target) || ORDER[table] || table === 'auth_state') continue;
      await trx.raw(
        `SELECT setval(pg_get_serial_sequence(?, 'id'), COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM ??`,
        [table, table],
      );
    }
  });
  return counts;
}
