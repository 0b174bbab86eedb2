// docs/catalogue-scale.md "Bulk load": a load into an empty table skips what it wrote itself
// without asking the database for each entry (src/domain/catalog/load-seen.ts), and skips exactly
// what a load into a filled table skips. Its own sandbox: the tables are empty when it starts.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IS_PG, useSandbox, withSandboxDb } from '../helpers/cli.js';

const LARGE_LOADS_MS = 300_000;

const cli = useSandbox();

async function file(name: string, content: unknown): Promise<string> {
  const p = path.join(cli.dir, name);
  await writeFile(p, JSON.stringify(content));
  return p;
}

interface Counts {
  actors: number;
  places: number;
  skipped: { actors: number; places: number };
}

const count = (table: string) =>
  withSandboxDb(cli, async (db) => {
    const [row] = await db(table).count<{ n: number | string }[]>({ n: '*' });
    return Number(row?.n);
  });

describe('catalog load into empty tables', () => {
  it('writes each identity once, repeats within and across batches skipped, and the same file again adds nothing', async () => {
    // 1,500 entries, 3 batches: 600 names, each without a date and with one (1,200 identities);
    // the last 300 repeat the first 300 in capitals, in another batch.
    const actors = Array.from({ length: 1500 }, (_, i) => ({
      name: `${i < 1200 ? 'Empty' : 'EMPTY'} person ${i % 600}`,
      ...(i % 1200 < 600 ? {} : { date_start: '1900' }),
    }));
    const places = Array.from({ length: 700 }, (_, i) => ({ name: `Empty place ${i % 350}`, country_code: 'CH' }));
    const p = await file('empty.json', { actors, places });
    const first = await cli.json<Counts>(['catalog', 'load', p]);
    expect([first.actors, first.skipped.actors, first.places, first.skipped.places]).toEqual([1200, 300, 350, 350]);
    expect([await count('actors'), await count('places')]).toEqual([1200, 350]);
    const again = await cli.json<Counts>(['catalog', 'load', p]);
    expect([again.actors, again.skipped.actors, again.places, again.skipped.places]).toEqual([0, 1500, 0, 700]);
    expect([await count('actors'), await count('places')]).toEqual([1200, 350]);
  });

  // Past DEFER_INDEXES_AFTER entries the trigram indexes are built again at the end: after the
  // load they are there as the migrations made them (new ones) and find the new names. A load that
  // fails leaves them, and the table, as they were; so does a load while a reader holds the table.
  it.skipIf(!IS_PG)(
    'builds the trigram indexes again after a large load, and leaves them after a failed one or beside a reader',
    async () => {
      const indexes = () =>
        withSandboxDb(cli, async (db) => {
          const { rows } = await db.raw<{ rows: { def: string; oid: number }[] }>(
            `SELECT pg_get_indexdef(indexrelid) AS def, indexrelid::int AS oid FROM pg_index
              WHERE indrelid = 'actors'::regclass ORDER BY 1`,
          );
          return { defs: rows.map((r) => r.def), oids: rows.map((r) => r.oid) };
        });
      const found = () =>
        withSandboxDb(cli, async (db) => {
          const [row] = await db('actors')
            .where('name_lower', 'like', '%person 50499 zebra%')
            .count<{ n: string }[]>({ n: '*' });
          return Number(row?.n);
        });
      await withSandboxDb(cli, (db) => db('actors').delete());
      const before = await indexes();
      expect(before.defs.filter((d) => /USING gin/.test(d))).toHaveLength(2);
      const actors = Array.from({ length: 50_600 }, (_, i) => ({ name: `Large person ${i % 50_500} zebrafinch` }));
      const large = await file('large.json', { actors });

      const bad = await cli.run(['catalog', 'load', await file('bad.json', { actors: [...actors, { type: 'x' }] })]);
      expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('actors[50600].name: required')]);
      expect(await count('actors')).toBe(0);
      expect(await indexes()).toEqual(before);

      // A reader's open transaction: the indexes are kept up row by row instead.
      await withSandboxDb(cli, async (db) => {
        const reader = await db.transaction();
        try {
          await reader('actors').first('id');
          const counts = await cli.json<Counts>(['catalog', 'load', large]);
          expect([counts.actors, counts.skipped.actors]).toEqual([50_500, 100]);
        } finally {
          await reader.commit();
        }
      });
      expect(await indexes()).toEqual(before);
      expect(await found()).toBe(1);

      await withSandboxDb(cli, (db) => db('actors').delete());
      const counts = await cli.json<Counts>(['catalog', 'load', large]);
      expect([counts.actors, counts.skipped.actors]).toEqual([50_500, 100]);
      const after = await indexes();
      expect(after.defs).toEqual(before.defs);
      expect(after.oids).not.toEqual(before.oids);
      expect(await found()).toBe(1);
    },
    LARGE_LOADS_MS,
  );
});
