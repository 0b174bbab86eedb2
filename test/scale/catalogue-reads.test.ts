// The catalogue read path at archive scale (issue 11), through a real daemon: search through the
// text index with the same answers as before (case-insensitive substrings, short searches too),
// every sortField in the order it had (NULLs last ascending, first descending), keyset pages
// equal to the offset pages, totals from the counter, and the text index kept by the triggers.
import { beforeAll, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/api.js';
import { withSandboxDb } from '../helpers/cli.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, api, t } = useDaemonWithTokens();

interface Actor {
  id: number;
  name: string;
  type: string;
  date_start: string | null;
  date_end: string | null;
  created_at: string;
  updated_at: string;
}
interface Meta {
  page: number;
  perPage: number;
  total: number;
  total_exact?: false;
  next_cursor?: string | null;
}

const NAMES = [
  'Über Straße',
  'über alles',
  'Anna Zeller',
  'Bruno Ab',
  'carla ab',
  'Dora Müller',
  'MÜLLER Emil',
  'x',
  'Zoë',
  'Ab',
  'Rabatt 100% auf_Alles \\o/',
  'Der "Grosse" Karl',
];

async function list(query: string): Promise<{ data: Actor[]; meta: Meta }> {
  const r = await api.get(`/api/actors?${query}`, t.user);
  expect(r.status, r.text).toBe(200);
  return r.body as { data: Actor[]; meta: Meta };
}

beforeAll(async () => {
  for (const [i, name] of NAMES.entries()) {
    const body: Record<string, unknown> = { name, type: i % 2 ? 'person' : 'corporate_body' };
    if (i % 3) body.date_start = String(1900 + ((i * 7) % 10));
    if (i % 4 === 1) body.date_end = String(1990 + i);
    const r = await api.post('/api/actors', body, t.editor);
    expect(r.status, r.text).toBe(201);
  }
});

/** What the list answered before: the names holding `search` once both are lower-cased. */
const expectedSearch = (search: string) => NAMES.filter((n) => n.toLowerCase().includes(search.toLowerCase()));

describe('search through the text index', () => {
  // Searches of three characters or more are counted by the text index alone (src/db/list-sql.ts):
  // LIKE's wildcards, its escape character and FTS5's quote are plain characters there too.
  it.each([
    'MÜLLER',
    'üller',
    'ÜBER',
    'straße',
    'zell',
    'ab',
    'a',
    'Ü',
    'zoë',
    'nobody here',
    '100%',
    'f_a',
    '\\o/',
    '%',
    '_',
    '"gross',
    'e" k',
  ])('finds the case-insensitive substring %j, as before', async (search) => {
    const { data, meta } = await list(`search=${encodeURIComponent(search)}&perPage=100`);
    expect(data.map((a) => a.name).sort()).toEqual(expectedSearch(search).sort());
    expect(meta.total).toBe(expectedSearch(search).length);
    expect(meta).not.toHaveProperty('total_exact');
  });

  it('answers select2 from the same search', async () => {
    const r = await api.get('/api/actors?format=select2&search=m%C3%BCller', t.user);
    const body = r.body as { results: { text: string }[]; pagination: { more: boolean } };
    expect(body.results.map((x) => x.text).sort()).toEqual(expectedSearch('müller').sort());
    expect(body.pagination.more).toBe(false);
  });

  it('finds reconciliation candidates through it', async () => {
    const queries = encodeURIComponent(JSON.stringify({ q0: { query: 'Dora Müller' } }));
    const r = await api.get(`/api/actors/reconcile?queries=${queries}`, t.user);
    const names = (r.body as { q0: { result: { name: string }[] } }).q0.result.map((c) => c.name);
    expect(names[0]).toBe('Dora Müller');
    expect(names).toContain('MÜLLER Emil');
  });

  it('follows creates, changes and deletes (the triggers)', async () => {
    const created = dataOf<Actor>(await api.post('/api/actors', { name: 'Quetzalcoatl' }, t.editor));
    expect((await list('search=quetzal')).data.map((a) => a.id)).toEqual([created.id]);
    await api.put(`/api/actors/${created.id}`, { name: 'Tlaloc' }, t.editor);
    expect((await list('search=quetzal')).data).toEqual([]);
    expect((await list('search=tlal')).data.map((a) => a.id)).toEqual([created.id]);
    const before = (await list('')).meta.total;
    await withSandboxDb(cli(), (db) => db('actors').where('id', created.id).delete());
    expect((await list('search=tlal')).data).toEqual([]);
    expect((await list('')).meta.total).toBe(before - 1);
  });
});

/** The order the list answered before: by the value, NULLs last ascending, ties by id. */
function expectedOrder(all: Actor[], field: keyof Actor, asc: boolean): number[] {
  const value = (a: Actor) => {
    const v = a[field];
    return typeof v === 'string' && field === 'name' ? v.toLowerCase() : v;
  };
  const sorted = [...all].sort((a, b) => {
    const [x, y] = [value(a), value(b)];
    if (x === y) return a.id - b.id;
    if (x === null) return 1;
    if (y === null) return -1;
    return x < y ? -1 : 1;
  });
  if (!asc) sorted.reverse();
  return sorted.map((a) => a.id);
}

describe('sorting and paging', () => {
  const FIELDS = ['id', 'type', 'date_start', 'date_end', 'created_at', 'updated_at'] as const;

  it.each(FIELDS.flatMap((f) => [`${f}:1`, `${f}:0`]))('orders %s as before, NULLs last ascending', async (spec) => {
    const [field, asc] = spec.split(':') as [(typeof FIELDS)[number], string];
    const all = (await list('perPage=100')).data;
    const { data } = await list(`perPage=100&sortField=${field}&sortAsc=${asc}`);
    expect(data.map((a) => a.id)).toEqual(expectedOrder(all, field, asc === '1'));
  });

  // Letters and spaces only: collations disagree on where punctuation sorts.
  it('orders names case-insensitively (ASCII letters: the same order on both dialects)', async () => {
    const ascii = (await list('perPage=100')).data.filter((a) => /^[A-Za-z ]+$/.test(a.name));
    const ids = new Set(ascii.map((a) => a.id));
    for (const asc of [true, false]) {
      const { data } = await list(`perPage=100&sortField=name&sortAsc=${asc ? 1 : 0}`);
      expect(data.filter((a) => ids.has(a.id)).map((a) => a.id)).toEqual(expectedOrder(ascii, 'name', asc));
    }
  });

  it.each(FIELDS.flatMap((f) => [`${f}:1`, `${f}:0`]))(
    'gives the same pages by cursor as by page (%s)',
    async (spec) => {
      const [field, asc] = spec.split(':');
      const sort = `sortField=${field}&sortAsc=${asc}&perPage=3`;
      const { meta } = await list(sort);
      const byPage: number[] = [];
      for (let page = 1; (page - 1) * 3 < meta.total; page++) {
        byPage.push(...(await list(`${sort}&page=${page}`)).data.map((a) => a.id));
      }
      const byCursor: number[] = [];
      let cursor: string | null | undefined = 'start';
      while (cursor) {
        const r = await list(`${sort}&cursor=${cursor}`);
        byCursor.push(...r.data.map((a) => a.id));
        expect(r.meta.total).toBe(meta.total);
        cursor = r.meta.next_cursor;
      }
      expect(byCursor).toEqual(byPage);
      expect(byPage).toEqual((await list(`sortField=${field}&sortAsc=${asc}&perPage=100`)).data.map((a) => a.id));
    },
  );

  it('refuses a cursor of another sort, and page beside a cursor', async () => {
    const first = await list('sortField=type&perPage=2&cursor=start');
    const other = await api.get(`/api/actors?sortField=name&cursor=${first.meta.next_cursor}`, t.user);
    expect(other.status).toBe(422);
    expect((other.body as { fields: Record<string, string> }).fields).toHaveProperty('cursor');
    const both = await api.get('/api/actors?cursor=start&page=2', t.user);
    expect(both.status).toBe(422);
    expect((await api.get('/api/actors?cursor=nonsense', t.user)).status).toBe(422);
  });

  it('keeps meta to page, perPage and total without a cursor, and answers past the end empty', async () => {
    const { meta } = await list('perPage=4&page=2');
    expect(Object.keys(meta).sort()).toEqual(['page', 'perPage', 'total']);
    const beyond = await list(`perPage=4&page=${Math.ceil(meta.total / 4) + 1}`);
    expect(beyond.data).toEqual([]);
    expect(beyond.meta.total).toBe(meta.total);
  });
});
