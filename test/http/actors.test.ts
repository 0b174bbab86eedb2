// docs/http-api.md#http-api actors through a real daemon: create, read, change, list (search, paging, sorting,
// select2, BEACON), and every kind of bad input answered with the right 4xx and nothing changed.
import { beforeAll, describe, expect, it } from 'vitest';
import { dataOf, fieldsOf, ISO_INSTANT } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';
import { clockMoves } from '../helpers/until.js';

const { daemon, api, t } = useDaemonWithTokens();

// Ours, then the ones Anton's clients read (full_id, fullname, authority_type; issue 9).
const ACTOR_KEYS = [
  'id',
  'type',
  'name',
  'label',
  'alternative_names',
  'variants',
  'abbreviations',
  'date_start',
  'date_end',
  'comment',
  'gnd',
  'sikart',
  'created_at',
  'updated_at',
  'full_id',
  'fullname',
  'authority_type',
];

interface Actor {
  id: number;
  type: string;
  name: string;
  label: Record<string, string> | null;
  alternative_names: string[] | null;
  date_start: string | null;
  date_end: string | null;
  comment: string | null;
  gnd: string | null;
  variants?: string[] | null;
  abbreviations?: string[] | null;
  sikart?: string | null;
  full_id?: string;
  fullname?: string;
  authority_type?: string;
  created_at: string;
  updated_at: string;
}

interface List<T> {
  data: T[];
  meta: { page: number; perPage: number; total: number };
}

async function create(body: Record<string, unknown>): Promise<Actor> {
  const r = await api.post('/api/actors', body, t.editor);
  expect(r.status, r.text).toBe(201);
  return dataOf<Actor>(r);
}

async function total(): Promise<number> {
  const r = await api.get('/api/actors', t.user);
  return (r.body as List<Actor>).meta.total;
}

describe('POST /api/actors', () => {
  it('creates an actor with every field and answers 201 {"data": actor}', async () => {
    const body = {
      type: 'person',
      name: 'Goethe, Johann Wolfgang von',
      label: { de: 'Johann Wolfgang von Goethe', en: 'Goethe' },
      alternative_names: ['J. W. Goethe', 'Goethe'],
      date_start: '1749-08-28',
      date_end: '1832-03-22',
      comment: 'Poet',
      gnd: '118540238',
    };
    const r = await api.post('/api/actors', body, t.editor);
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(r.body as object)).toEqual(['data']);
    const actor = dataOf<Actor>(r);
    expect(Object.keys(actor).sort()).toEqual([...ACTOR_KEYS].sort());
    expect(actor).toMatchObject(body);
    expect(Number.isInteger(actor.id) && actor.id > 0).toBe(true);
    expect(actor.created_at).toMatch(ISO_INSTANT);
    expect(actor.updated_at).toMatch(ISO_INSTANT);
  });

  it('fills the optional fields with their defaults (type person, the rest null)', async () => {
    const actor = await create({ name: 'Minimal' });
    expect(actor).toMatchObject({
      name: 'Minimal',
      type: 'person',
      ...Object.fromEntries(
        ['label', 'alternative_names', 'date_start', 'date_end', 'comment', 'gnd'].map((k) => [k, null]),
      ),
    });
  });

  it('accepts every actor type, 255 characters of name, a GND URI, partial dates and a urlencoded form', async () => {
    for (const type of ['person', 'family', 'corporate_body', 'organisational_unit', 'group', 'software']) {
      expect((await create({ name: `Type ${type}`, type })).type).toBe(type);
    }
    expect((await create({ name: 'ä'.repeat(255) })).name).toBe('ä'.repeat(255));
    expect((await create({ name: 'GND URI', gnd: 'https://d-nb.info/gnd/4005728-8' })).gnd).toBe('4005728-8');
    expect(await create({ name: 'Dates', date_start: '1900', date_end: '1950-06' })).toMatchObject({
      date_start: '1900',
      date_end: '1950-06',
    });
    const form = await api.request('/api/actors', {
      method: 'POST',
      body: 'name=Form%20actor&type=group',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Bearer ${t.editor}` },
    });
    expect(form.status, form.text).toBe(201);
    expect(dataOf<Actor>(form)).toMatchObject({ name: 'Form actor', type: 'group' });
  });

  it('answers 422 with fields naming each bad input, and creates nothing', async () => {
    const before = await total();
    const cases: [string, unknown, string][] = [
      ['missing name', {}, 'name'],
      ['null name', { name: null }, 'name'],
      ['empty name', { name: '' }, 'name'],
      ['blank name', { name: '   ' }, 'name'],
      ['name too long', { name: 'x'.repeat(256) }, 'name'],
      ['name not a string', { name: 42 }, 'name'],
      ['name with a line break', { name: 'a\nb' }, 'name'],
      ['bad type', { name: 'x', type: 'alien' }, 'type'],
      ['type not a string', { name: 'x', type: 1 }, 'type'],
      ['unknown field', { name: 'x', nickname: 'y' }, 'nickname'],
      ['bad gnd', { name: 'x', gnd: 'not-a-gnd' }, 'gnd'],
      ['gnd not a string', { name: 'x', gnd: 118540238 }, 'gnd'],
      ['label a string', { name: 'x', label: 'Goethe' }, 'label'],
      ['label an array', { name: 'x', label: ['Goethe'] }, 'label'],
      ['label with a bad locale', { name: 'x', label: { 'not a locale': 'x' } }, 'label'],
      ['label value not a string', { name: 'x', label: { de: 1 } }, 'label'],
      ['alternative_names a string', { name: 'x', alternative_names: 'Goethe' }, 'alternative_names'],
      ['alternative_names with a number', { name: 'x', alternative_names: ['a', 1] }, 'alternative_names'],
      ['alternative_names an object', { name: 'x', alternative_names: { a: 'b' } }, 'alternative_names'],
      ['date_start not a date', { name: 'x', date_start: 'yesterday' }, 'date_start'],
      ['date_start impossible', { name: 'x', date_start: '1900-02-30' }, 'date_start'],
      ['date_end before date_start', { name: 'x', date_start: '1900', date_end: '1899' }, 'date_end'],
      ['comment not a string', { name: 'x', comment: ['a'] }, 'comment'],
    ];
    for (const [what, body, field] of cases) {
      const r = await api.post('/api/actors', body, t.editor);
      expect(r.status, what).toBe(422);
      expect(fieldsOf(r), what).toHaveProperty(field);
    }
    expect(await total()).toBe(before);
  });

  it('names every bad field of one request', async () => {
    const r = await api.post('/api/actors', { type: 'alien', gnd: 'x', label: 'y', extra: 1 }, t.editor);
    expect(Object.keys(fieldsOf(r)).sort()).toEqual(['extra', 'gnd', 'label', 'name', 'type']);
  });

  it('answers 400 for malformed JSON, 415 for text/plain and 422 for a JSON array', async () => {
    const before = await total();
    const post = (body: string, type: string) =>
      api.request('/api/actors', {
        method: 'POST',
        body,
        headers: { 'Content-Type': type, Authorization: `Bearer ${t.editor}` },
      });
    expect((await post('{"name": ', 'application/json')).status).toBe(400);
    expect((await post('{"name": "x",}', 'application/json')).status).toBe(400);
    expect((await post('name: x', 'text/plain')).status).toBe(415);
    expect((await post('<actor name="x"/>', 'application/xml')).status).toBe(415);
    const array = await post('[{"name": "x"}]', 'application/json');
    expect(array.status).toBe(422);
    expect(await total()).toBe(before);
  });
});

describe('GET /api/actors/{id}', () => {
  it('answers the actor as created', async () => {
    const created = await create({
      name: 'Schiller, Friedrich',
      gnd: '118607626',
      label: { de: 'Friedrich Schiller' },
    });
    const r = await api.get(`/api/actors/${created.id}`, t.user);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: created });
    const head = await api.head(`/api/actors/${created.id}`, t.user);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('answers 404 for an unknown id and for anything that is not a positive integer', async () => {
    for (const id of ['999999', 'abc', '0', '-1', '1.5', '1e3', '01', '99999999999999999999', '%20', 'null']) {
      const r = await api.get(`/api/actors/${id}`, t.user);
      expect(r.status, id).toBe(404);
    }
  });
});

describe('PUT /api/actors/{id}', () => {
  it('replaces the given fields only and answers 200', async () => {
    const created = await create({
      name: 'Mann, Thomas',
      comment: 'Novelist',
      gnd: '118577166',
      alternative_names: ['T. Mann'],
    });
    await clockMoves(); // updated_at must move
    const r = await api.put(`/api/actors/${created.id}`, { comment: 'Nobel prize 1929', date_start: '1875' }, t.editor);
    expect(r.status).toBe(200);
    const changed = dataOf<Actor>(r);
    expect(changed).toEqual({
      ...created,
      comment: 'Nobel prize 1929',
      date_start: '1875',
      updated_at: changed.updated_at,
    });
    expect(changed.updated_at > created.updated_at).toBe(true);
    expect((await api.get(`/api/actors/${created.id}`, t.user)).body).toEqual({ data: changed });
  });

  it('clears an optional field given as null, and accepts a GET result sent back', async () => {
    const created = await create({ name: 'Hesse, Hermann', comment: 'x', label: { de: 'Hesse' } });
    const cleared = dataOf<Actor>(await api.put(`/api/actors/${created.id}`, { comment: null, label: null }, t.editor));
    expect(cleared).toMatchObject({ name: 'Hesse, Hermann', comment: null, label: null });
    const back = await api.put(`/api/actors/${created.id}`, { ...cleared, name: 'Hesse, H.' }, t.editor);
    expect(back.status, back.text).toBe(200);
    expect(dataOf<Actor>(back)).toMatchObject({ id: created.id, name: 'Hesse, H.', created_at: created.created_at });
  });

  it('answers 422 for bad fields and changes nothing', async () => {
    const created = await create({ name: 'Kafka, Franz', date_start: '1883' });
    const cases: [unknown, string][] = [
      [{ name: null }, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'y'.repeat(256) }, 'name'],
      [{ type: 'alien' }, 'type'],
      [{ type: null }, 'type'],
      [{ gnd: 'nope' }, 'gnd'],
      [{ label: 'x' }, 'label'],
      [{ alternative_names: [null] }, 'alternative_names'],
      [{ unknown_field: 1 }, 'unknown_field'],
      [{ date_end: '1800' }, 'date_end'], // before the stored date_start
    ];
    for (const [body, field] of cases) {
      const r = await api.put(`/api/actors/${created.id}`, body, t.editor);
      expect(fieldsOf(r), JSON.stringify(body)).toHaveProperty(field);
    }
    const array = await api.put(`/api/actors/${created.id}`, [{ name: 'x' }], t.editor);
    expect(array.status).toBe(422);
    const bodiless = await api.request(`/api/actors/${created.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${t.editor}` },
    });
    expect(fieldsOf(bodiless)).toEqual({ body: 'required' });
    expect((await api.get(`/api/actors/${created.id}`, t.user)).body).toEqual({ data: created });
  });

  it('answers 404 for unknown and non-integer ids, 400 for malformed JSON, 415 for text/plain', async () => {
    for (const id of ['999999', 'abc', '0', '-1', '1.5']) {
      expect((await api.put(`/api/actors/${id}`, { comment: 'x' }, t.editor)).status, id).toBe(404);
    }
    const created = await create({ name: 'Malformed target' });
    const put = (body: string, type: string) =>
      api.request(`/api/actors/${created.id}`, {
        method: 'PUT',
        body,
        headers: { 'Content-Type': type, Authorization: `Bearer ${t.editor}` },
      });
    expect((await put('{"name": "x"', 'application/json')).status).toBe(400);
    expect((await put('name=x', 'text/plain')).status).toBe(415);
    expect((await api.get(`/api/actors/${created.id}`, t.user)).body).toEqual({ data: created });
  });
});

describe('GET /api/actors (list)', () => {
  const names = ['Listtest Alpha', 'listtest beta', 'LISTTEST Gamma', 'Listtest Delta', 'Other Epsilon'];
  let ids: number[] = [];
  beforeAll(async () => {
    ids = [];
    for (const name of names)
      ids.push((await create({ name, ...(name.includes('Delta') ? { gnd: '118540238' } : {}) })).id);
  });

  it('answers {"data": [...], "meta": {"page", "perPage", "total"}} with perPage 25 by default', async () => {
    const r = await api.get('/api/actors', t.user);
    expect(r.status).toBe(200);
    const list = r.body as List<Actor>;
    expect(Object.keys(list).sort()).toEqual(['data', 'meta']);
    expect(Object.keys(list.meta).sort()).toEqual(['page', 'perPage', 'total']);
    expect(list.meta.page).toBe(1);
    expect(list.meta.perPage).toBe(25);
    expect(list.meta.total).toBeGreaterThanOrEqual(names.length);
    expect(list.data.length).toBe(Math.min(25, list.meta.total));
    for (const a of list.data) expect(Object.keys(a).sort()).toEqual([...ACTOR_KEYS].sort());
  });

  it('searches a case-insensitive substring of the name', async () => {
    for (const search of ['listtest', 'LISTTEST', 'LiStTeSt', 'test a']) {
      const list = (await api.get(`/api/actors?search=${encodeURIComponent(search)}`, t.user)).body as List<Actor>;
      const expected = names.filter((n) => n.toLowerCase().includes(search.toLowerCase()));
      expect(list.data.map((a) => a.name).sort(), search).toEqual(expected.sort());
      expect(list.meta.total).toBe(expected.length);
    }
    const none = (await api.get('/api/actors?search=nobody-has-this-name', t.user)).body as List<Actor>;
    expect(none).toEqual({ data: [], meta: { page: 1, perPage: 25, total: 0 } });
    // % and _ are plain characters, not patterns
    expect(((await api.get('/api/actors?search=%25', t.user)).body as List<Actor>).meta.total).toBe(0);
    expect(((await api.get('/api/actors?search=listtest_', t.user)).body as List<Actor>).meta.total).toBe(0);
  });

  it('pages with page and perPage', async () => {
    const all = ((await api.get('/api/actors?search=listtest&perPage=100', t.user)).body as List<Actor>).data.map(
      (a) => a.id,
    );
    expect(all).toHaveLength(4);
    const p1 = (await api.get('/api/actors?search=listtest&perPage=3&page=1', t.user)).body as List<Actor>;
    const p2 = (await api.get('/api/actors?search=listtest&perPage=3&page=2', t.user)).body as List<Actor>;
    const p3 = (await api.get('/api/actors?search=listtest&perPage=3&page=3', t.user)).body as List<Actor>;
    expect(p1.meta).toEqual({ page: 1, perPage: 3, total: 4 });
    expect(p2.meta).toEqual({ page: 2, perPage: 3, total: 4 });
    expect([...p1.data, ...p2.data].map((a) => a.id)).toEqual(all);
    expect(p3.data).toEqual([]);
    expect((await api.get('/api/actors?perPage=100', t.user)).status).toBe(200);
  });

  it('refuses perPage above 100 and other bad list parameters with 422 naming the parameter', async () => {
    // docs/http-api.md#http-api: perPage at most 100. The daemon refuses a larger value (it does not cap it).
    const cases: [string, string][] = [
      ['perPage=101', 'perPage'],
      ['perPage=1000', 'perPage'],
      ['perPage=0', 'perPage'],
      ['perPage=-1', 'perPage'],
      ['perPage=abc', 'perPage'],
      ['page=0', 'page'],
      ['page=1.5', 'page'],
      ['page=x', 'page'],
      ['page=1&page=2', 'page'],
      ['sortField=password', 'sortField'],
      ['sortField=label', 'sortField'],
      ['sortAsc=2', 'sortAsc'],
      ['sortAsc=yes', 'sortAsc'],
      ['format=xml', 'format'],
      [`search=${'x'.repeat(256)}`, 'search'],
    ];
    for (const [query, field] of cases) {
      const r = await api.get(`/api/actors?${query}`, t.user);
      expect(fieldsOf(r), query).toHaveProperty(field);
    }
  });

  it('sorts by sortField, ascending unless sortAsc=0', async () => {
    const asc = (
      (await api.get('/api/actors?search=listtest&sortField=name&sortAsc=1', t.user)).body as List<Actor>
    ).data.map((a) => a.name);
    const desc = (
      (await api.get('/api/actors?search=listtest&sortField=name&sortAsc=0', t.user)).body as List<Actor>
    ).data.map((a) => a.name);
    const expected = names
      .filter((n) => n.toLowerCase().includes('listtest'))
      .sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    expect(asc).toEqual(expected);
    expect(desc).toEqual([...expected].reverse());
    const byId = (
      (await api.get('/api/actors?search=listtest&sortField=id&sortAsc=0', t.user)).body as List<Actor>
    ).data.map((a) => a.id);
    expect(byId).toEqual([...ids.slice(0, 4)].reverse());
    for (const field of ['type', 'date_start', 'date_end', 'created_at', 'updated_at']) {
      expect((await api.get(`/api/actors?sortField=${field}`, t.user)).status, field).toBe(200);
    }
  });

  it('answers format=select2 as {"results": [{"id", "text"}]}', async () => {
    const r = await api.get('/api/actors?format=select2&search=listtest&sortField=id', t.user);
    expect(r.status).toBe(200);
    const body = r.body as { results: { id: number; text: string }[] };
    expect(body.results).toEqual(ids.slice(0, 4).map((id, i) => ({ id, text: names[i] })));
    for (const item of body.results) expect(Object.keys(item).sort()).toEqual(['id', 'text']);
  });

  it('answers format=beacon as BEACON text of the actors with a GND id', async () => {
    const r = await api.get('/api/actors?format=beacon', t.user);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text.startsWith('#FORMAT: BEACON\n')).toBe(true);
    expect(r.text).toContain('#PREFIX: https://d-nb.info/gnd/');
    const delta = ids[3] as number;
    expect(r.text.split('\n')).toContain(`118540238|Listtest Delta|${delta}`);
    expect(r.text).not.toContain('Listtest Alpha'); // no GND id, no link
    expect((await api.get('/api/actors?format=beacon&provider=gnd', t.user)).text).toContain(`|${delta}`);
    for (const provider of ['geonames', 'viaf', 'x']) {
      const bad = await api.get(`/api/actors?format=beacon&provider=${provider}`, t.user);
      expect(fieldsOf(bad), provider).toHaveProperty('provider');
    }
  });
});

describe("Anton's fields and requests (issue 9)", () => {
  it('gives every record and list item full_id <slug>-actors-<id> (slug "archive" by default), fullname and authority_type', async () => {
    const created = await create({ name: 'Luther, Martin', type: 'person' });
    expect(created).toMatchObject({
      full_id: `archive-actors-${created.id}`,
      fullname: 'Luther, Martin',
      authority_type: 'person',
    });
    expect(dataOf<Actor>(await api.get(`/api/actors/${created.id}`, t.user))).toEqual(created);
    const list = (await api.get('/api/actors?format=json&perPage=30&search=luther', t.user)).body as List<Actor>;
    expect(list.data.map((a) => a.full_id)).toEqual([`archive-actors-${created.id}`]);
  });

  it('creates from ActorInput (label, type_id, anton dates, variants, abbreviations, private false): 201 with Location', async () => {
    const r = await api.post(
      '/api/actors',
      {
        label: { de: 'Zwingli, Huldrych', fr: null },
        type_id: 1,
        anton_date_start: '1.1.1484',
        anton_date_end: '11.10.1531',
        variants: ['Ulrich Zwingli'],
        abbreviations: ['H. Z.'],
        alternative_names: ['Zuinglius'],
        comment: 'Reformer',
        private: false,
      },
      t.editor,
    );
    expect(r.status, r.text).toBe(201);
    const actor = dataOf<Actor>(r);
    expect(actor).toMatchObject({
      name: 'Zwingli, Huldrych',
      fullname: 'Zwingli, Huldrych',
      label: { de: 'Zwingli, Huldrych' },
      type: 'person',
      date_start: '1484-01-01',
      date_end: '1531-10-11',
      variants: ['Ulrich Zwingli'],
      abbreviations: ['H. Z.'],
      alternative_names: ['Zuinglius'],
    });
    expect(r.headers.get('location')).toBe(`${daemon().url.replace(/\/$/, '')}/api/actors/${actor.id}`);
    expect((await api.get(new URL(r.headers.get('location') as string).pathname, t.user)).body).toEqual({
      data: actor,
    });
  });

  it('refuses what it cannot honour with 422 naming the field: private true, unknown type_id, disagreeing type', async () => {
    const before = await total();
    for (const [body, field] of [
      [{ label: { de: 'Secret' }, private: true }, 'private'],
      [{ name: 'x', type_id: 9 }, 'type_id'],
      [{ name: 'x', type_id: 2, type: 'group' }, 'type_id'],
      [{ name: 'x', anton_date_start: 'um 1500' }, 'anton_date_start'],
      [{ label: { de: null } }, 'name'],
    ] as [Record<string, unknown>, string][]) {
      expect(fieldsOf(await api.post('/api/actors', body, t.editor)), JSON.stringify(body)).toHaveProperty(field);
    }
    expect(await total()).toBe(before);
  });

  it('changes with ActorInput: the name follows a new label while it was the label’s, and stays when it was given apart', async () => {
    const anton = await create({ label: { de: 'Müller, Hans' } });
    const changed = dataOf<Actor>(
      await api.put(`/api/actors/${anton.id}`, { label: { de: 'Müller, Johann' }, type_id: 3 }, t.editor),
    );
    expect(changed).toMatchObject({
      name: 'Müller, Johann',
      fullname: 'Müller, Johann',
      type: 'corporate_body',
      authority_type: 'corporate_body',
    });
    const ours = await create({ name: 'Goethe, Johann Wolfgang von', label: { de: 'Johann Wolfgang von Goethe' } });
    const kept = dataOf<Actor>(
      await api.put(`/api/actors/${ours.id}`, { label: { de: 'J. W. von Goethe' } }, t.editor),
    );
    expect(kept).toMatchObject({ name: 'Goethe, Johann Wolfgang von', label: { de: 'J. W. von Goethe' } });
    // A GET result sent back with its derived fields is accepted; they are not inputs.
    const back = await api.put(
      `/api/actors/${ours.id}`,
      { ...kept, comment: 'round trip', authority_type: 'family' },
      t.editor,
    );
    expect(back.status, back.text).toBe(200);
    expect(dataOf<Actor>(back)).toMatchObject({ type: 'person', comment: 'round trip' });
  });

  it('filters by authority_type (code, label or type_id), in every format; an unknown one is a 422', async () => {
    const family = await create({ name: 'Authfilter Medici', type: 'family' });
    const body = await create({ name: 'Authfilter Zunft', type: 'corporate_body', gnd: '2037654-4' });
    await create({ name: 'Authfilter Person' });
    const names = async (q: string) =>
      ((await api.get(`/api/actors?search=authfilter&${q}`, t.user)).body as List<Actor>).data
        .map((a) => a.name)
        .sort();
    expect(await names('')).toEqual(['Authfilter Medici', 'Authfilter Person', 'Authfilter Zunft']);
    expect(await names('authority_type=family')).toEqual(['Authfilter Medici']);
    expect(await names('authority_type=K%C3%B6rperschaft')).toEqual(['Authfilter Zunft']);
    expect(await names('authority_type=3')).toEqual(['Authfilter Zunft']);
    expect(await names('authority_type=person')).toEqual(['Authfilter Person']);
    const select2 = (await api.get('/api/actors?format=select2&search=authfilter&authority_type=family', t.user))
      .body as { results: { id: number }[] };
    expect(select2.results.map((x) => x.id)).toEqual([family.id]);
    const beacon = (await api.get('/api/actors?format=beacon&authority_type=corporate_body', t.user)).text;
    expect(beacon.split('\n')).toContain(`2037654-4|Authfilter Zunft|${body.id}`);
    expect((await api.get('/api/actors?format=beacon&authority_type=person', t.user)).text).not.toContain(
      'Authfilter Zunft',
    );
    expect(fieldsOf(await api.get('/api/actors?authority_type=alien', t.user))).toHaveProperty('authority_type');
  });

  it('keeps SIKART ids and dumps them as BEACON with provider=sikart', async () => {
    const artist = await create({
      name: 'Hodler, Ferdinand',
      sikart: 'https://recherche.sik-isea.ch/sik:person-4000055/in/sikart',
    });
    expect(artist.sikart).toBe('4000055');
    const r = await api.get('/api/actors?format=beacon&provider=sikart', t.user);
    expect(r.status).toBe(200);
    expect(r.text).toContain('#PREFIX: https://recherche.sik-isea.ch/sik:person-{ID}/in/sikart\n');
    expect(r.text.split('\n')).toContain(`4000055|Hodler, Ferdinand|${artist.id}`);
    expect(r.text).not.toContain('118540238|');
  });

  it('sorts by date_start and date_end', async () => {
    await create({ name: 'Datesort B', date_start: '1900', date_end: '1950-06' });
    await create({ name: 'Datesort A', date_start: '1800-05-01', date_end: '1990' });
    await create({ name: 'Datesort C' });
    const order = async (q: string) =>
      ((await api.get(`/api/actors?search=datesort&${q}`, t.user)).body as List<Actor>).data.map((a) => a.name);
    expect(await order('sortField=date_start&sortAsc=1')).toEqual(['Datesort A', 'Datesort B', 'Datesort C']);
    expect(await order('sortField=date_end&sortAsc=0')).toEqual(['Datesort C', 'Datesort A', 'Datesort B']);
  });
});
