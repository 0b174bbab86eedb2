// docs/catalogue-scale.md "Bulk load": a load into an empty table skips what it wrote itself
// without asking the database for each entry (src/domain/catalog/load-seen.ts), and skips exactly
// what a load into a filled table skips. Its own sandbox: the tables are empty when it starts.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandbox, withSandboxDb } from '../helpers/cli.js';

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
});
