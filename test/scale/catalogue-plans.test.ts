// The catalogue's indexes (migration catalog_scale): applied to a database that already holds
// records (the text index and the counters filled), and the plans of the list and search
// queries use them. Plans are deterministic; no timing is asserted.
import path from 'node:path';
import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { listActors } from '../../src/domain/catalog/actors.js';
import { parseListQuery } from '../../src/domain/catalog/list/query.js';
import { ACTOR } from '../../src/domain/catalog/resources/index.js';
import { IS_PG, REPO_ROOT, useSandbox, withSandboxDb } from '../helpers/cli.js';

const SCALE = '20261124000000_catalog_scale.js';
const migrations = { directory: path.join(REPO_ROOT, 'migrations'), loadExtensions: ['.js'] };
const cli = useSandbox({ migrate: false });

/** Applies the migrations before catalog_scale, one at a time. */
async function migrateBefore(db: Knex): Promise<void> {
  for (;;) {
    const [, pending] = (await db.migrate.list(migrations)) as [unknown, { file: string }[]];
    if (pending[0]?.file === SCALE) return;
    await db.migrate.up(migrations);
  }
}

/**
 * The SQL the list runs for `query`, and the plan of each statement. Run in a transaction, the
 * list reads through knex, which reports each statement (the SQL is the same on either path).
 */
async function plansOf(db: Knex, query: Record<string, string>): Promise<string[]> {
  const statements: { sql: string; bindings: readonly unknown[] }[] = [];
  const listen = (q: { sql: string; bindings?: readonly unknown[] }) =>
    statements.push({ sql: q.sql, bindings: q.bindings ?? [] });
  await db.transaction(async (trx) => {
    trx.on('query', listen);
    try {
      await listActors({ db: trx } as never, parseListQuery(query, ACTOR.listOptions));
    } finally {
      trx.off('query', listen);
    }
  });
  const plans: string[] = [];
  for (const { sql, bindings } of statements) {
    if (IS_PG) {
      // A tiny table is read whole whatever its indexes; forbidding that shows whether one serves.
      await db.raw('SET enable_seqscan = off');
      await db.raw('SET enable_sort = off');
      const r = await db.raw<{ rows: { 'QUERY PLAN': string }[] }>(
        `EXPLAIN ${sql.replace(/\$\d+/g, '?')}`,
        bindings as never[],
      );
      plans.push(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
    } else {
      const rows = await db.raw<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${sql}`, bindings as never[]);
      plans.push(rows.map((x) => x.detail).join('\n'));
    }
  }
  return plans;
}

describe('the catalog_scale migration on a database with records', () => {
  it('fills the text index and the counters, and the lists use indexes', async () => {
    await withSandboxDb(cli, async (db) => {
      await migrateBefore(db);
      const now = new Date().toISOString();
      const rows = ['Anna Müller', 'Bruno Keller', 'Carla Müllerova', 'Dora'].map((name, i) => ({
        type: 'person',
        name,
        name_lower: name.toLowerCase(),
        date_start: i % 2 ? null : '1900',
        created_at: now,
        updated_at: now,
      }));
      await db('actors').insert(rows);
      await db.migrate.latest(migrations);

      const count = await db('catalog_counts').where('name', 'actors').first<{ n: number | string }>('n');
      expect(Number(count.n)).toBe(4);
      const found = await listActors({ db } as never, parseListQuery({ search: 'MÜLLER' }, ACTOR.listOptions));
      expect(found.data.map((a) => a.name)).toEqual(['Anna Müller', 'Carla Müllerova']);
      expect(found.meta.total).toBe(2);
      if (!IS_PG) {
        const fts = (await db.raw(`SELECT rowid FROM actors_text WHERE actors_text MATCH '"üller"'`)) as unknown[];
        expect(fts).toHaveLength(2);
      }

      const lists: Record<string, string>[] = [
        {},
        { sortField: 'name' },
        { sortField: 'date_start' },
        { sortField: 'date_start', sortAsc: '0' },
        { sortField: 'updated_at', page: '1' },
        { sortField: 'type', cursor: 'start' },
      ];
      for (const query of lists) {
        for (const plan of await plansOf(db, query)) {
          if (IS_PG) {
            expect(plan, JSON.stringify(query)).not.toMatch(/Seq Scan|Sort\b/);
          } else {
            // `SCAN actors` alone is the walk of the table in id order (a LIMIT stops it).
            expect(plan, JSON.stringify(query)).not.toMatch(/TEMP B-TREE/);
            if (query.sortField !== undefined && !plan.includes('catalog_counts')) {
              expect(plan, JSON.stringify(query)).toMatch(/USING (COVERING )?INDEX actors_sort_/);
            }
          }
        }
      }
      // A search of three characters or more goes through the text index.
      const search = (await plansOf(db, { search: 'müller' })).join('\n');
      if (IS_PG) {
        // On a table of four rows PostgreSQL prefers any btree to the GIN index: that the
        // trigram index exists is what is checked here (bench/RESULTS.md has the large tables).
        const indexes = await db('pg_indexes').where('tablename', 'actors').pluck('indexname');
        expect(indexes).toEqual(expect.arrayContaining(['actors_text_name', 'actors_text_alt']));
        expect(search).not.toMatch(/Seq Scan/);
      } else expect(search).toMatch(/VIRTUAL TABLE INDEX/);
    });
  });
});
