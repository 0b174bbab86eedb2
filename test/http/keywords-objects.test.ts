// docs/http-api.md#http-api keywords and objects through a real daemon: read-only over HTTP, created by
// `archivectl catalog load` and by SIP imports; list shapes, search, paging, select2.
import { beforeAll, describe, expect, it } from 'vitest';
import { fieldsOf, importSip, ISO_INSTANT, loadCatalog } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, api, t } = useDaemonWithTokens();

interface Keyword {
  id: number;
  name: string;
  label: Record<string, string> | null;
  gnd: string | null;
}
interface ArchiveObject {
  id: number;
  identifier: string;
  title: string | null;
  status: string;
  keywords: string[];
  created_at: string;
}
interface List<T> {
  data: T[];
  meta: { page: number; perPage: number; total: number };
}

beforeAll(async () => {
  expect(
    await loadCatalog(cli(), 'kw-objects.json', {
      keywords: [
        'Letters',
        { name: 'Manuscripts', gnd: '4037391-3', label: { en: 'Manuscripts', de: 'Handschriften' } },
        'Diaries',
      ],
      objects: [
        {
          identifier: 'SLA-Letter-1',
          title: 'Letter to Schiller',
          status: 'ingested',
          keywords: ['letters', 'Poetry'],
        },
        { identifier: 'SLA-Notebook-2', title: 'Notebook', keywords: ['Diaries'] },
        { identifier: 'SLA-3', title: null, status: 'failed' },
      ],
    }),
  ).toMatchObject({ keywords: 4, objects: 3 });
});

describe('GET /api/keywords', () => {
  it('lists keywords as {"data": [{id, name, label, gnd, full_id}], "meta"}', async () => {
    const r = await api.get('/api/keywords?sortField=name', t.user);
    expect(r.status).toBe(200);
    const list = r.body as List<Keyword>;
    expect(list.meta).toEqual({ page: 1, perPage: 25, total: 4 });
    expect(list.data.map((k) => k.name)).toEqual(['Diaries', 'Letters', 'Manuscripts', 'Poetry']);
    for (const k of list.data) expect(Object.keys(k).sort()).toEqual(['full_id', 'gnd', 'id', 'label', 'name']);
    expect(list.data.find((k) => k.name === 'Manuscripts')).toMatchObject({
      gnd: '4037391-3',
      label: { en: 'Manuscripts', de: 'Handschriften' },
    });
    expect(list.data.find((k) => k.name === 'Letters')).toMatchObject({ gnd: null, label: null });
  });

  it('searches case-insensitively, pages, sorts and answers select2', async () => {
    const search = (await api.get('/api/keywords?search=LETT', t.user)).body as List<Keyword>;
    expect(search.data.map((k) => k.name)).toEqual(['Letters']);
    const page = (await api.get('/api/keywords?sortField=name&sortAsc=0&perPage=2&page=2', t.user))
      .body as List<Keyword>;
    expect(page.data.map((k) => k.name)).toEqual(['Letters', 'Diaries']);
    expect(page.meta).toEqual({ page: 2, perPage: 2, total: 4 });
    const select2 = (await api.get('/api/keywords?format=select2&search=ia', t.user)).body as {
      results: { id: number; text: string }[];
    };
    expect(select2.results.map((x) => x.text).sort()).toEqual(['Diaries']);
    for (const x of select2.results) expect(Object.keys(x).sort()).toEqual(['id', 'text']);
  });

  it('refuses bad list parameters with 422, and BEACON (keywords have none)', async () => {
    for (const [query, field] of [
      ['perPage=101', 'perPage'],
      ['page=0', 'page'],
      ['sortField=gnd', 'sortField'],
      ['sortAsc=maybe', 'sortAsc'],
      ['format=beacon', 'format'],
    ]) {
      expect(fieldsOf(await api.get(`/api/keywords?${query}`, t.user)), query).toHaveProperty(field as string);
    }
  });

  it('is read-only over HTTP', async () => {
    const post = await api.post('/api/keywords', { name: 'New' }, t.editor);
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
    expect((await api.put('/api/keywords/1', { name: 'New' }, t.editor)).status).toBe(404);
    expect(((await api.get('/api/keywords?search=new', t.user)).body as List<Keyword>).meta.total).toBe(0);
  });
});

describe('GET /api/objects', () => {
  it('lists objects as {"data": [{id, identifier, title, status, keywords, created_at}], "meta"}', async () => {
    const r = await api.get('/api/objects?sortField=identifier', t.user);
    expect(r.status).toBe(200);
    const list = r.body as List<ArchiveObject>;
    expect(list.meta.total).toBeGreaterThanOrEqual(3);
    for (const o of list.data) {
      expect(Object.keys(o).sort()).toEqual(['created_at', 'id', 'identifier', 'keywords', 'status', 'title']);
      expect(o.created_at).toMatch(ISO_INSTANT);
    }
    const letter = list.data.find((o) => o.identifier === 'SLA-Letter-1');
    expect(letter).toMatchObject({ title: 'Letter to Schiller', status: 'ingested', keywords: ['Letters', 'Poetry'] });
    expect(list.data.find((o) => o.identifier === 'SLA-Notebook-2')).toMatchObject({
      status: 'ingested',
      keywords: ['Diaries'],
    });
    expect(list.data.find((o) => o.identifier === 'SLA-3')).toMatchObject({
      title: null,
      status: 'failed',
      keywords: [],
    });
  });

  it('shows an object created by a SIP import, in status ingesting, with its keywords', async () => {
    const receipt = await importSip(api, t.editor, {
      identifier: 'SIP-Objects-1',
      title: 'Imported papers',
      keywords: 'Letters,Photographs',
    });
    const list = (await api.get('/api/objects?search=sip-objects', t.user)).body as List<ArchiveObject>;
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      id: receipt.object_id,
      identifier: 'SIP-Objects-1',
      title: 'Imported papers',
      status: 'ingesting',
      keywords: ['Letters', 'Photographs'],
    });
    const kw = (await api.get('/api/keywords?search=photographs', t.user)).body as List<Keyword>;
    expect(kw.data.map((k) => k.name)).toEqual(['Photographs']);
  });

  it('searches title and identifier case-insensitively, pages and answers select2', async () => {
    const byTitle = (await api.get('/api/objects?search=SCHILLER', t.user)).body as List<ArchiveObject>;
    expect(byTitle.data.map((o) => o.identifier)).toEqual(['SLA-Letter-1']);
    const byIdentifier = (await api.get('/api/objects?search=notebook-2', t.user)).body as List<ArchiveObject>;
    expect(byIdentifier.data.map((o) => o.identifier)).toEqual(['SLA-Notebook-2']);
    const sla = (await api.get('/api/objects?search=sla-&sortField=identifier&perPage=2&page=2', t.user))
      .body as List<ArchiveObject>;
    expect(sla.meta).toEqual({ page: 2, perPage: 2, total: 3 });
    expect(sla.data.map((o) => o.identifier)).toEqual(['SLA-Notebook-2']);
    const select2 = (await api.get('/api/objects?format=select2&search=sla-&sortField=identifier', t.user)).body as {
      results: { id: number; text: string }[];
    };
    // the text is the title, or the identifier when there is none
    expect(select2.results.map((x) => x.text)).toEqual(['SLA-3', 'Letter to Schiller', 'Notebook']);
    for (const field of ['id', 'identifier', 'title', 'status', 'created_at']) {
      expect((await api.get(`/api/objects?sortField=${field}&sortAsc=0`, t.user)).status, field).toBe(200);
    }
  });

  it('refuses bad list parameters with 422 and is read-only over HTTP', async () => {
    for (const [query, field] of [
      ['perPage=101', 'perPage'],
      ['sortField=keywords', 'sortField'],
      ['format=beacon', 'format'],
      ['search=a&search=b', 'search'],
    ]) {
      expect(fieldsOf(await api.get(`/api/objects?${query}`, t.user)), query).toHaveProperty(field as string);
    }
    const post = await api.post('/api/objects', { identifier: 'X' }, t.editor);
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
    expect((await api.get('/api/objects/1', t.user)).status).toBe(404);
  });
});

describe("Anton's list parameters (issue 9)", () => {
  it('gives keywords full_id, accepts format=json and sorts by label (Anton’s name for the name)', async () => {
    const list = (await api.get('/api/keywords?format=json&perPage=30&sortField=label&sortAsc=0', t.user)).body as List<
      Keyword & { full_id: string }
    >;
    const byName = (await api.get('/api/keywords?perPage=30&sortField=name', t.user)).body as List<Keyword>;
    expect(list.data.map((k) => k.name)).toEqual(byName.data.map((k) => k.name).reverse());
    expect(list.data.map((k) => k.name)).toEqual(
      expect.arrayContaining(['Poetry', 'Manuscripts', 'Letters', 'Diaries']),
    );
    for (const k of list.data) expect(k.full_id).toBe(`archive-keywords-${k.id}`);
  });

  it('narrows objects to one exact identifier, and refuses the structured filters it does not support', async () => {
    const one = (await api.get('/api/objects?identifier=SLA-3', t.user)).body as List<ArchiveObject>;
    expect(one.data.map((o) => o.identifier)).toEqual(['SLA-3']);
    expect(((await api.get('/api/objects?identifier=sla-3', t.user)).body as List<ArchiveObject>).meta.total).toBe(0);
    expect(((await api.get('/api/objects?identifier=SLA', t.user)).body as List<ArchiveObject>).meta.total).toBe(0);
    const r = await api.get('/api/objects?fields[]=object.title&operators[]=contains&values[]=Brief', t.user);
    expect(Object.keys(fieldsOf(r)).sort()).toEqual(['fields[]', 'operators[]', 'values[]']);
  });

  it('sorts objects by identifier and title case-insensitively, the same on both dialects', async () => {
    const order = async (q: string) =>
      ((await api.get(`/api/objects?search=sla-&${q}`, t.user)).body as List<ArchiveObject>).data.map(
        (o) => o.identifier,
      );
    // titles: "Letter to Schiller", "Notebook", none (last ascending)
    expect(await order('sortField=title&sortAsc=1')).toEqual(['SLA-Letter-1', 'SLA-Notebook-2', 'SLA-3']);
    expect(await order('sortField=identifier&sortAsc=0')).toEqual(['SLA-Notebook-2', 'SLA-Letter-1', 'SLA-3']);
    for (const field of ['name', 'date_start', 'date_end']) {
      expect(fieldsOf(await api.get(`/api/objects?sortField=${field}`, t.user)), field).toHaveProperty('sortField');
    }
  });
});
