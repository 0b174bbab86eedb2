// The list parameters of a query string are remembered by its text (parseListQuery) for the
// requests that send the same one: repeated, alternated, refused and over-long query strings must
// each still get exactly their own answer.
import { beforeAll, describe, expect, it } from 'vitest';
import { dataOf, fieldsOf } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { api, t } = useDaemonWithTokens();

interface List {
  data: { name: string }[];
  meta: { page: number; perPage: number; total: number };
}

const list = async (query: string) => {
  const r = await api.get(`/api/actors?${query}`, t.user);
  expect(r.status, query).toBe(200);
  return r.body as List;
};

beforeAll(async () => {
  for (const name of ['Shared Anna', 'Shared Bruno', 'Shared Carla'])
    dataOf(await api.post('/api/actors', { name }, t.editor));
});

describe('query strings asked again and again', () => {
  it('answer each string with its own parameters, in any order and any number of times', async () => {
    const queries = ['search=shared&perPage=1', 'search=shared&perPage=2', 'search=shared&perPage=3&sortAsc=0'];
    for (let round = 0; round < 3; round++) {
      for (const [i, query] of queries.entries()) {
        const page = await list(query);
        expect(page.data, query).toHaveLength(i + 1);
        expect(page.meta).toEqual({ page: 1, perPage: i + 1, total: 3 });
      }
    }
    expect((await list('search=shared&perPage=3&sortAsc=0')).data.map((a) => a.name)).toEqual([
      'Shared Carla',
      'Shared Bruno',
      'Shared Anna',
    ]);
  });

  it('refuse a bad or repeated parameter every time, and remember nothing of it', async () => {
    for (let round = 0; round < 3; round++) {
      expect(Object.keys(fieldsOf(await api.get('/api/actors?perPage=abc', t.user)))).toEqual(['perPage']);
      expect(Object.keys(fieldsOf(await api.get('/api/actors?perPage=1&perPage=2', t.user)))).toEqual(['perPage']);
    }
    expect((await list('search=shared&perPage=2')).data).toHaveLength(2);
  });

  it('decode as Koa does (percent escapes, + as a space), and take strings too long to be remembered', async () => {
    expect((await list('search=%53hared+bruno')).data.map((a) => a.name)).toEqual(['Shared Bruno']);
    const long = `search=shared&perPage=2&${'x'.repeat(600)}=1`;
    for (let round = 0; round < 2; round++) expect((await list(long)).data).toHaveLength(2);
  });
});
