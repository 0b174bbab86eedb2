// The prepared read path of the catalogue lists (src/db/prepared-reads.ts, list-sql.ts): on
// SQLite every list answers exactly what the same list read through knex answers (a knex
// transaction reads through knex), after writes of the same handle and of another one on the
// same file (another daemon), and the read connections close with the handle (closeDatabase).
import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createActor, listActors, updateActor } from '../../src/domain/catalog/actors.js';
import { parseAuthorityTypeFilter } from '../../src/domain/catalog/anton/fields.js';
import { parseListQuery, type QueryInput } from '../../src/domain/catalog/list/query.js';
import { ACTOR } from '../../src/domain/catalog/resources/index.js';
import { preparedReads } from '../../src/db/prepared-reads.js';
import { IS_PG, useSandbox, withSandboxDb } from '../helpers/cli.js';

const cli = useSandbox();

const FIRST = ['Anna', 'Bruno', 'Carla', 'Dora', 'Émile', 'Zoë'];
const FAMILY = ['Müller', 'Meier', 'Keller', 'Weber', 'Ab'];

const QUERIES: QueryInput[] = [
  {},
  { perPage: '7' },
  { perPage: '7', page: '3' },
  { perPage: '7', page: '20' },
  { perPage: '7', page: '99' },
  { sortAsc: '0', perPage: '9', page: '2' },
  { sortField: 'name', perPage: '11', page: '4' },
  { sortField: 'name', sortAsc: '0' },
  { sortField: 'date_start', perPage: '13', page: '2' },
  { sortField: 'date_start', sortAsc: '0', perPage: '13', page: '9' },
  { sortField: 'date_end', perPage: '50' },
  { search: 'müller' },
  { search: 'MÜLLER', perPage: '5', page: '6' },
  { search: 'müller', sortAsc: '0', perPage: '5', page: '2' },
  { search: 'müller', sortField: 'name', perPage: '5', page: '3' },
  { search: 'ab' },
  { search: 'a', perPage: '100' },
  { search: 'nobody' },
  { search: '100%_\\' },
  { format: 'select2', search: 'kell' },
  { cursor: 'start', perPage: '8' },
  { cursor: 'start', perPage: '8', search: 'meier' },
  { cursor: 'start', perPage: '8', sortField: 'date_start', sortAsc: '0' },
  { authority_type: 'person', perPage: '6', page: '2' },
  { authority_type: 'corporate_body', search: 'weber' },
];

/** Every list of QUERIES, and each cursor walk to its end, as the list function answers them. */
async function answers(db: Knex): Promise<unknown[]> {
  const ctx = { db, clock: systemClock };
  const out: unknown[] = [];
  for (const query of QUERIES) {
    let q = parseListQuery(query, ACTOR.listOptions);
    const filter = { type: parseAuthorityTypeFilter(query) };
    for (let page = await listActors(ctx, q, filter); ;) {
      out.push(page);
      const next = page.meta.next_cursor;
      if (!next) break;
      q = parseListQuery({ ...query, cursor: next }, ACTOR.listOptions);
      page = await listActors(ctx, q, filter);
    }
  }
  return out;
}

/** The same lists read through knex: inside a transaction the prepared path is not taken. */
const throughKnex = (db: Knex) => db.transaction((trx) => answers(trx));

async function addActors(db: Knex, from: number, to: number): Promise<void> {
  const ctx = { db, clock: systemClock };
  for (let i = from; i < to; i++) {
    const input: Record<string, unknown> = {
      name: `${FIRST[i % FIRST.length]} ${FAMILY[(i * 7) % FAMILY.length]} ${i}`,
      type: i % 3 ? 'person' : 'corporate_body',
    };
    if (i % 4) input.date_start = String(1800 + ((i * 13) % 150));
    if (i % 5 === 1) input.date_end = String(1990 + (i % 20));
    await createActor(ctx, input);
  }
}

describe('the prepared read path of the catalogue lists', () => {
  it('answers what knex answers, after writes of this handle and of another one', async () => {
    await withSandboxDb(cli, async (db) => {
      expect(preparedReads(db) === null).toBe(IS_PG);
      await db.transaction(async (trx) => expect(preparedReads(trx)).toBeNull());
      await addActors(db, 0, 180);
      const first = await answers(db);
      expect(first).toEqual(await throughKnex(db));
      expect(first.length).toBeGreaterThan(QUERIES.length);

      // A write through this handle is seen by the next read.
      const ctx = { db, clock: systemClock };
      await updateActor(ctx, 5, { name: 'Quetzal Müller' });
      const renamed = await listActors(ctx, parseListQuery({ search: 'quetzal' }, ACTOR.listOptions));
      expect(renamed.data.map((a) => a.id)).toEqual([5]);

      // Another handle on the same file (another daemon): its writes are seen too.
      await withSandboxDb(cli, async (other) => {
        await addActors(other, 180, 230);
        await updateActor({ db: other, clock: systemClock }, 7, { name: 'Quetzal Zweiter' });
      });
      const after = await answers(db);
      expect(after).toEqual(await throughKnex(db));
      expect(after).not.toEqual(first);
      const both = await listActors(ctx, parseListQuery({ search: 'QUETZAL' }, ACTOR.listOptions));
      expect(both.data.map((a) => a.id)).toEqual([5, 7]);
      expect(both.meta.total).toBe(2);
      const all = await listActors(ctx, parseListQuery({}, ACTOR.listOptions));
      expect(all.meta.total).toBe(230);
    });
  });

  // Values equal to the ones last bound are not bound again (prepared-reads.ts run): runs of one
  // statement queued at once, with values that repeat and change, must each meet their own.
  it('answers each of many lists run at once on the same statements with its own values', async () => {
    await withSandboxDb(cli, async (db) => {
      await addActors(db, 0, 60);
      const ctx = { db, clock: systemClock };
      const queries: QueryInput[] = [];
      for (let i = 0; i < 120; i++) {
        const perPage = String([3, 3, 7, 3, 7, 7, 1, 1, 1, 9][i % 10]);
        queries.push(i % 3 === 2 ? { perPage, search: FAMILY[i % FAMILY.length] } : { perPage });
      }
      const list = (q: QueryInput) => listActors(ctx, parseListQuery(q, ACTOR.listOptions));
      const atOnce = await Promise.all(queries.map(list));
      const expected = await db.transaction((trx) =>
        Promise.all(
          queries.map((q) => listActors({ db: trx, clock: systemClock }, parseListQuery(q, ACTOR.listOptions))),
        ),
      );
      expect(atOnce).toEqual(expected);
      expect(atOnce.map((l) => l.data.length)).toContain(9);
    });
  });

  it('closes its connections with the handle (closeDatabase); a new handle reads again', async () => {
    let closed: ReturnType<typeof preparedReads> = null;
    await withSandboxDb(cli, async (db) => {
      await listActors({ db, clock: systemClock }, parseListQuery({}, ACTOR.listOptions));
      closed = preparedReads(db);
    });
    if (!IS_PG) await expect(closed!.all('SELECT 1 AS one', [])).rejects.toThrow();
    await withSandboxDb(cli, async (db) => {
      const list = await listActors({ db, clock: systemClock }, parseListQuery({ perPage: '3' }, ACTOR.listOptions));
      expect(list.data).toHaveLength(3);
    });
  });

  // sqlite3 never calls back a run of a statement whose prepare failed: the error must come from
  // the prepare itself, or the request waits for ever (a table missing from the schema).
  it.skipIf(IS_PG)('refuses SQL that does not prepare, each time, and goes on reading', async () => {
    await withSandboxDb(cli, async (db) => {
      const reads = preparedReads(db);
      const bad = 'SELECT id FROM no_such_table WHERE id > ?';
      await expect(reads?.all(bad, [0])).rejects.toThrow(/no such table: no_such_table/);
      await expect(reads?.all(bad, [0])).rejects.toThrow(/no such table: no_such_table/);
      await db.schema.createTable('no_such_table', (t) => t.increments('id'));
      await db.raw('INSERT INTO no_such_table DEFAULT VALUES');
      await db.raw('INSERT INTO no_such_table DEFAULT VALUES');
      expect(await reads?.all(bad, [1])).toEqual([{ id: 2 }]);
      expect(await reads?.all('SELECT count(*) AS n FROM no_such_table WHERE id > ?', [0])).toEqual([{ n: 2 }]);
    });
  });
});
