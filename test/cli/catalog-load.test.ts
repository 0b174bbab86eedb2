// SPEC §6 `archivectl catalog load <file.json>`: actors, places, keywords and objects, checked
// first and written in one transaction; a bad entry is named and nothing is loaded.
// Runs the built CLI as a child process against a throw-away installation.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IS_PG, lines, STACK_FRAME_RE, useSandbox } from '../helpers/cli.js';

const cli = useSandbox();

async function file(name: string, content: unknown): Promise<string> {
  const p = path.join(cli.dir, name);
  await writeFile(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

interface Counts {
  actors: number;
  places: number;
  keywords: number;
  objects: number;
}

const GOOD = {
  actors: [
    {
      name: 'Goethe, Johann Wolfgang von',
      gnd: '118540238',
      date_start: '1749-08-28',
      date_end: '1832-03-22',
      alternative_names: ['J. W. Goethe'],
    },
    {
      name: 'Schweizerisches Literaturarchiv',
      type: 'corporate_body',
      label: { de: 'Schweizerisches Literaturarchiv', fr: 'Archives littéraires suisses' },
    },
  ],
  places: [{ name: 'Bern', country_code: 'CH', location: '46.948 7.4474', geonames: '2661552' }],
  keywords: ['Letters', { name: 'Manuscripts', gnd: '4037391-3', label: { en: 'Manuscripts' } }],
  objects: [
    { identifier: 'SLA-1', title: 'Letter to Schiller', status: 'ingested', keywords: ['letters', 'Poetry'] },
    { identifier: 'SLA-2', title: 'Notebook' },
  ],
};

/** GOOD with identifiers of its own, to load a second time. */
const GOOD_AGAIN = { ...GOOD, objects: GOOD.objects.map((o) => ({ ...o, identifier: `${o.identifier}-again` })) };

describe('catalog load', () => {
  it('loads a good file and prints the counts as JSON', async () => {
    const counts = await cli.json<Counts>(['catalog', 'load', await file('good.json', GOOD)]);
    // Keywords: Letters and Manuscripts from the list, Poetry named only by an object;
    // "letters" is the same keyword as "Letters".
    expect(counts).toEqual({ actors: 2, places: 1, keywords: 3, objects: 2 });
  });

  it('reuses existing keywords and counts only new ones', async () => {
    const counts = await cli.json<Counts>([
      'catalog',
      'load',
      await file('more.json', { keywords: ['LETTERS', 'Diaries'] }),
    ]);
    expect(counts).toEqual({ actors: 0, places: 0, keywords: 1, objects: 0 });
  });

  it('prints a table of counts for people', async () => {
    const r = await cli.run([
      'catalog',
      'load',
      await file('human.json', { actors: [{ name: 'Schiller, Friedrich' }] }),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^actors +1$/m); // plain columns since issue 10 (no borders)
    expect(r.stdout).toMatch(/^objects +0$/m);
  });

  it('refuses a bad entry, naming it, and loads nothing of the file', async () => {
    const bad = {
      actors: [{ name: 'Kafka, Franz' }, { name: 'Mann, Thomas' }, { name: 'Hesse, Hermann' }, { type: 'person' }],
      keywords: ['Only-in-bad-file'],
      objects: [{ identifier: 'BAD-1' }],
    };
    const r = await cli.run(['catalog', 'load', await file('bad.json', bad), '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('actors[3].name: required');
    expect(r.stderr).not.toMatch(STACK_FRAME_RE);

    // Nothing of it was written: its object identifier and keyword are still free.
    const again = await cli.json<Counts>([
      'catalog',
      'load',
      await file('retry.json', { keywords: ['Only-in-bad-file'], objects: [{ identifier: 'BAD-1' }] }),
    ]);
    expect(again).toEqual({ actors: 0, places: 0, keywords: 1, objects: 1 });
  });

  it('reports several problems with their places', async () => {
    const r = await cli.run([
      'catalog',
      'load',
      await file('bad2.json', {
        places: [{ name: 'Zürich', location: '95 8.5' }],
        keywords: [42],
        objects: [{ identifier: 'X-1', status: 'lost' }],
        people: [],
      }),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('people: unknown section');
    expect(r.stderr).toContain('places[0].location');
    expect(r.stderr).toContain('nothing was loaded');
  });

  it('refuses an object identifier that already exists, and loads nothing', async () => {
    const r = await cli.run([
      'catalog',
      'load',
      await file('dup.json', {
        actors: [{ name: 'Walser, Robert' }],
        keywords: ['Only-in-dup-file'],
        objects: [{ identifier: 'NEW-1' }, { identifier: 'SLA-1' }],
      }),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('objects[1].identifier');
    expect(r.stderr).toContain('SLA-1');
    const again = await cli.json<Counts>([
      'catalog',
      'load',
      await file('dup-retry.json', { keywords: ['Only-in-dup-file'], objects: [{ identifier: 'NEW-1' }] }),
    ]);
    expect(again).toEqual({ actors: 0, places: 0, keywords: 1, objects: 1 });
  });

  it('refuses the same identifier twice in one file', async () => {
    const r = await cli.run([
      'catalog',
      'load',
      await file('twice.json', { objects: [{ identifier: 'T-1' }, { identifier: 'T-1' }] }),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('objects[1].identifier');
  });

  it('refuses a file that is not JSON, or not an object', async () => {
    const notJson = await cli.run(['catalog', 'load', await file('broken.json', '{"actors": [')]);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('not valid JSON');
    const array = await cli.run(['catalog', 'load', await file('array.json', [])]);
    expect(array.code).toBe(1);
    expect(array.stderr).toContain('must be a JSON object');
  });

  it('refuses a missing file with one line', async () => {
    const r = await cli.run(['catalog', 'load', path.join(cli.dir, 'nope.json')]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('ENOENT');
  });

  it('reads standard input for "-"', async () => {
    const r = await cli.run(['catalog', 'load', '-', '--json'], {
      input: JSON.stringify({ places: [{ name: 'Basel' }] }),
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ actors: 0, places: 1, keywords: 0, objects: 0 });
  });

  // PostgreSQL plans a search from the table's statistics: without fresh ones after a large load
  // it reads every hit of a common word (db/statistics.ts).
  it.skipIf(!IS_PG)('leaves PostgreSQL planner statistics of the loaded tables', async () => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: cli.env.DATABASE_URL });
    await client.connect();
    const analysed = async () =>
      (
        await client.query<{ relname: string }>(
          `SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() AND last_analyze IS NOT NULL`,
        )
      ).rows
        .map((r) => r.relname)
        .filter((t) => ['actors', 'places', 'keywords', 'objects', 'object_keywords'].includes(t))
        .sort();
    try {
      const before = await analysed();
      const counts = await cli.json<Counts>([
        'catalog',
        'load',
        await file('stats.json', { actors: [{ name: 'Walser' }] }),
      ]);
      expect(counts.actors).toBe(1);
      // Only the table that got rows: the others keep whatever they had.
      expect(await analysed()).toEqual([...new Set([...before, 'actors'])].sort());
      await cli.json(['catalog', 'load', await file('stats-all.json', GOOD_AGAIN)]);
      expect(await analysed()).toEqual(['actors', 'keywords', 'object_keywords', 'objects', 'places']);
    } finally {
      await client.end();
    }
  });
});
