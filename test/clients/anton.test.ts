// Anton's clients against a running daemon with public_access on:
// 1. the requests of the published editor plugins `anton-vs` (TypeScript) and `anton-oxy`
//    (Java), with their response parsing ported line by line, must find and label entities;
// 2. every operation of Anton's public API that falls within our routes is replayed from the
//    facts written down in test/fixtures/anton/api-facts.json (its operations, their query
//    parameters and allowed values, and the properties of ActorInput, PlaceInput and
//    UsageReport; see test/fixtures/specs/README.md): each enum value of each query parameter, and
//    request bodies holding every property. What differs is listed in DIFFERENCES (the README's
//    list), with the status the API answers instead; anything else must succeed.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applySettings,
  basicTokens,
  bearer,
  loadCatalog,
  replyProblems,
  send,
  sipForm,
  type BasicTokens,
  type Reply,
} from '../helpers/api.js';
import { createSandbox, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';

// --- the facts of Anton's API ----------------------------------------------------------------------

interface Parameter {
  name: string;
  type: string;
  enum?: string[];
}
interface Operation {
  /** A token is required (ApiKeyAuth or BearerAuth). */
  token: boolean;
  query?: Parameter[];
  /** The schema of the JSON request body. */
  body?: string;
}
interface Facts {
  /** `METHOD /path` of every operation Anton documents. */
  operations: string[];
  /** The operations within our routes, keyed like `operations`. */
  details: Record<string, Operation>;
  bodies: Record<string, { required: string[]; properties: string[] }>;
}
const FACTS = JSON.parse(readFileSync(new URL('../fixtures/anton/api-facts.json', import.meta.url), 'utf8')) as Facts;

const bodySchema = (name: string) => {
  const schema = FACTS.bodies[name];
  if (!schema) throw new Error(`no body schema ${name} in api-facts.json`);
  return schema;
};
const propertiesOf = (name: string) => bodySchema(name).properties;

/** Anton's paths → ours. `/keywords/{locale}` is our `/api/keywords` (no locale segment: a difference). */
const OUR_PATH: Record<string, string> = {
  '/actors': '/api/actors',
  '/actors/{id}': '/api/actors/{id}',
  '/places': '/api/places',
  '/places/{id}': '/api/places/{id}',
  '/keywords/{locale}': '/api/keywords',
  '/objects': '/api/objects',
  '/sips/import': '/api/sips/import',
  '/ai-cataloging/usage': '/api/ai-cataloging/usage',
};

/**
 * Where the API answers otherwise than Anton's document, and why (the README lists the same).
 * Key: `METHOD anton-path param=value` (or `… body:field`); value: the status instead.
 */
const DIFFERENCES: Record<string, number> = {
  // sortField values that name no field of the resource
  'GET /actors sortField=identifier': 422,
  'GET /actors sortField=title': 422,
  'GET /places sortField=identifier': 422,
  'GET /places sortField=title': 422,
  'GET /places sortField=date_start': 422,
  'GET /places sortField=date_end': 422,
  'GET /objects sortField=name': 422,
  'GET /objects sortField=date_start': 422,
  'GET /objects sortField=date_end': 422,
  // Excel's denormalised export and the structured filters are not offered
  'GET /objects format=flat': 422,
  'GET /objects fields=object.title': 422,
  'GET /objects operators=contains': 422,
  'GET /objects values=x': 422,
  // records are public to whoever may read the register; a private one cannot be kept
  'POST /actors body:private=true': 422,
  'PUT /actors/{id} body:private=true': 422,
  // place types are terms of each Anton installation's own valuelist
  'POST /places body:type_id=1': 422,
  'POST /places/{id} body:type_id=1': 422,
};

// --- a daemon as an Anton installation "kr" with public_access on ---------------------------------

let box: Sandbox | undefined;
let d: RunningDaemon | undefined;
let t: BasicTokens;
const daemon = () => d as RunningDaemon;
const ids: Record<string, number> = {};

beforeAll(async () => {
  box = await createSandbox();
  await patchConfig(box, { slug: 'kr' });
  d = await startDaemon(box);
  t = await basicTokens(box);
  await applySettings(box, { public_access: true, public_api: false });
  await loadCatalog(box, 'anton.json', {
    actors: [
      {
        name: 'Luther, Martin',
        type: 'person',
        gnd: '118575449',
        alternative_names: ['Martinus Lutherus'],
        variants: ['Luder'],
        abbreviations: ['M. L.'],
      },
      { name: 'Lutherische Kirche Zürich', type: 'corporate_body', sikart: '4000055' },
      { label: { de: 'Müller, Hans', fr: 'Muller, Jean' }, type: 'family' },
    ],
    places: [
      {
        name: 'Wittenberg',
        city: 'Wittenberg',
        state: 'Sachsen-Anhalt',
        country_code: 'DE',
        geonames: '2805753',
        wikipedia: 'https://de.wikipedia.org/wiki/Lutherstadt_Wittenberg',
      },
      { name: 'Zürich', city: 'Zürich', state: 'Zürich', country_code: 'CH', gnd: '4068038-8' },
      { name: 'Irgendwo' },
    ],
    keywords: ['Reformation', { name: 'Lutherbibel', label: { de: 'Lutherbibel' } }],
    objects: [{ identifier: 'KR-1', title: 'Brief an Luther', keywords: ['Reformation'] }],
  });
  for (const register of ['actors', 'places', 'keywords']) {
    const r = await send(daemon(), `/api/${register}?perPage=100`);
    for (const item of (r.body as { data: { id: number; name: string }[] }).data)
      ids[`${register}:${item.name}`] = item.id;
  }
});

afterAll(async () => {
  await d?.stop();
  await box?.cleanup();
});

/** A request; every answer must follow the API's universal rules (no 5xx, JSON errors, …). */
async function request(p: string, init: RequestInit = {}): Promise<Reply> {
  const r = await send(daemon(), p, init);
  expect(replyProblems(r), `${r.method} ${p}`).toEqual([]);
  return r;
}

/** A request with a JSON body and the editor's token. */
const jsonAsEditor = (method: string, p: string, body: unknown): Promise<Reply> =>
  request(p, {
    method,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...bearer(t.editor) },
  });

/** POSTs a new record as the editor and answers it, asserting 201 (Anton: 200 "Created"). */
async function createAsEditor(p: string, body: unknown): Promise<Record<string, unknown>> {
  const created = await jsonAsEditor('POST', p, body);
  expect(created.status, created.text).toBe(201);
  return (created.body as { data: Record<string, unknown> }).data;
}

// --- 1. the published clients ----------------------------------------------------------------------

interface AntonEntity {
  id: number;
  fullId: string;
  label: string;
  type: string;
  detail: string;
  register: string;
  names: string[];
}

const str = (o: unknown): string => (o === null || o === undefined ? '' : String(o));
function firstNonEmpty(m: Record<string, unknown>, ...keys: string[]): string {
  for (const k of keys) {
    const v = str(m[k]);
    if (v) return v;
  }
  return '';
}

/** anton-vs src/antonClient.ts `parse` (and anton-oxy AntonClient.parse + names), ported as written. */
function parse(register: string, body: string): AntonEntity[] {
  const out: AntonEntity[] = [];
  let root: { data?: unknown };
  try {
    root = JSON.parse(body) as { data?: unknown };
  } catch {
    return out;
  }
  const data = root?.data;
  if (!Array.isArray(data)) return out;
  for (const m of data as unknown[]) {
    if (!m || typeof m !== 'object') continue;
    const item = m as Record<string, unknown>;
    const fullId = str(item.full_id);
    if (!fullId) continue; // the line that made every hit vanish
    const id = typeof item.id === 'number' ? item.id : 0;
    const label = firstNonEmpty(item, 'fullname', 'name', 'label');
    const type = firstNonEmpty(item, 'authority_type', 'type');
    const detail =
      register === 'places' ? [str(item.city), str(item.state), str(item.country)].filter((p) => p).join(', ') : '';
    const names: string[] = [];
    for (const key of ['name', 'fullname', 'alternative_names', 'variants', 'abbreviations']) {
      const v = item[key];
      for (const s of (Array.isArray(v) ? v : v == null ? [] : [v]).map((x) => str(x).trim()))
        if (s && !names.includes(s)) names.push(s);
    }
    out.push({ id, fullId, label, type, detail, register, names });
  }
  return out;
}

/** anton-vs configCore.formatRef: splits full_id at `-<register>-`. */
function formatRef(template: string, e: AntonEntity): string {
  const marker = `-${e.register}-`;
  const p = e.fullId.indexOf(marker);
  const slug = p >= 0 ? e.fullId.substring(0, p) : '';
  const id = p >= 0 ? e.fullId.substring(p + marker.length) : String(e.id);
  return template
    .replace(/\{fullId\}/g, e.fullId)
    .replace(/\{slug\}/g, slug)
    .replace(/\{register\}/g, e.register)
    .replace(/\{id\}/g, id);
}

/** anton-vs: `?format=json&perPage=30&search=` + encodeURIComponent; no token, Accept JSON. */
async function vsSearch(register: string, query: string): Promise<AntonEntity[]> {
  const r = await request(`/api/${register}?format=json&perPage=30&search=${encodeURIComponent(query)}`, {
    headers: { Accept: 'application/json' },
  });
  expect(r.status, r.text).toBe(200);
  return parse(register, r.text);
}

/** anton-oxy: the same with Java's URLEncoder (spaces as `+`). */
async function oxySearch(register: string, query: string): Promise<AntonEntity[]> {
  const enc = new URLSearchParams({ s: query }).toString().slice(2);
  const r = await request(`/api/${register}?format=json&perPage=30&search=${enc}`, {
    headers: { Accept: 'application/json' },
  });
  expect(r.status, r.text).toBe(200);
  return parse(register, r.text);
}

describe('the published Anton clients (anton-vs, anton-oxy), without a token', () => {
  it('find actors with full_id, label and type, and write kr-actors-<id>', async () => {
    for (const search of [vsSearch, oxySearch]) {
      const hits = await search('actors', 'luther');
      expect(hits.map((h) => h.fullId)).toEqual([
        `kr-actors-${ids['actors:Luther, Martin']}`,
        `kr-actors-${ids['actors:Lutherische Kirche Zürich']}`,
      ]);
      expect(hits.map((h) => [h.label, h.type])).toEqual([
        ['Luther, Martin', 'person'],
        ['Lutherische Kirche Zürich', 'corporate_body'],
      ]);
      expect(hits[0]?.names).toEqual(['Luther, Martin', 'Martinus Lutherus', 'Luder', 'M. L.']);
      expect(formatRef('{slug}|{register}|{id}', hits[0] as AntonEntity)).toBe(
        `kr|actors|${ids['actors:Luther, Martin']}`,
      );
    }
    const spaced = await oxySearch('actors', 'Müller, Hans');
    expect(spaced.map((h) => h.label)).toEqual(['Müller, Hans']);
    expect(spaced[0]?.type).toBe('family');
  });

  it('find places with city, state and country as their detail', async () => {
    const hits = await vsSearch('places', 'ü');
    expect(hits).toEqual([
      {
        id: ids['places:Zürich'],
        fullId: `kr-places-${ids['places:Zürich']}`,
        label: 'Zürich',
        type: '',
        detail: 'Zürich, Zürich, Switzerland',
        register: 'places',
        names: ['Zürich'],
      },
    ]);
    expect((await oxySearch('places', 'witten'))[0]?.detail).toBe('Wittenberg, Sachsen-Anhalt, Germany');
    expect((await oxySearch('places', 'irgendwo'))[0]).toMatchObject({
      detail: '',
      fullId: `kr-places-${ids['places:Irgendwo']}`,
    });
  });

  it('find keywords', async () => {
    const hits = await vsSearch('keywords', 'luther');
    expect(hits.map((h) => [h.fullId, h.label])).toEqual([
      [`kr-keywords-${ids['keywords:Lutherbibel']}`, 'Lutherbibel'],
    ]);
    expect((await vsSearch('keywords', '')).length).toBe(2);
  });

  it('skip nothing: every item of every register has a full_id', async () => {
    for (const register of ['actors', 'places', 'keywords']) {
      const r = await request(`/api/${register}?format=json&perPage=30&search=`);
      const data = (r.body as { data: unknown[] }).data;
      expect(parse(register, r.text)).toHaveLength(data.length);
    }
  });
});

// --- 2. Anton's API, from its facts ------------------------------------------------------------------

/** A sample value for a parameter without an enum. */
function sampleOf(p: Parameter): string {
  if (p.name === 'search') return 'luther';
  if (p.name === 'identifier') return 'KR-1';
  if (['fields', 'operators', 'values'].includes(p.name))
    return { fields: 'object.title', operators: 'contains', values: 'x' }[p.name] as string;
  if (p.type === 'integer') return p.name === 'perPage' ? '30' : '1';
  return 'x';
}

/** Anton's operations within our routes, each with its details (missing details fail the test). */
function operations(): { method: string; antonPath: string; ourPath: string; op: Operation }[] {
  const out: { method: string; antonPath: string; ourPath: string; op: Operation }[] = [];
  for (const key of FACTS.operations) {
    const [method = '', antonPath = ''] = key.split(' ');
    const ourPath = OUR_PATH[antonPath];
    if (!ourPath) continue;
    const op = FACTS.details[key];
    if (!op) throw new Error(`api-facts.json: no details for ${key}, which falls within our routes`);
    out.push({ method, antonPath, ourPath, op });
  }
  return out;
}

describe("Anton's API, replayed from its facts", () => {
  it('the facts hold the operations and shapes this test replays', () => {
    const ops = operations().map((o) => `${o.method} ${o.antonPath}`);
    expect(ops).toEqual(
      expect.arrayContaining([
        'GET /actors',
        'POST /actors',
        'GET /actors/{id}',
        'PUT /actors/{id}',
        'GET /places',
        'POST /places',
        'GET /places/{id}',
        'POST /places/{id}',
        'GET /keywords/{locale}',
        'GET /objects',
        'POST /sips/import',
        'POST /ai-cataloging/usage',
      ]),
    );
    expect(Object.keys(FACTS.details).sort()).toEqual([...ops].sort());
    const bodies = operations().map((o) => [`${o.method} ${o.antonPath}`, o.op.body]);
    expect(bodies.filter(([, body]) => body !== undefined)).toEqual([
      ['POST /actors', 'ActorInput'],
      ['PUT /actors/{id}', 'ActorInput'],
      ['POST /places', 'PlaceInput'],
      ['POST /places/{id}', 'PlaceInput'],
      ['POST /ai-cataloging/usage', 'UsageReport'],
    ]);
    expect(bodySchema('ActorInput').required).toEqual(['label']);
    expect(propertiesOf('ActorInput')).toEqual(
      expect.arrayContaining(['type_id', 'anton_date_start', 'private', 'variants']),
    );
    expect(propertiesOf('PlaceInput')).toEqual(expect.arrayContaining(['country_code_id', 'type_id']));
    expect(FACTS.details['GET /actors']?.query?.find((p) => p.name === 'provider')?.enum).toEqual(['gnd', 'sikart']);
  });

  it('GET operations: every enum value of every query parameter, and a sample of the others, as documented', async () => {
    const problems: string[] = [];
    let requests = 0;
    for (const { method, antonPath, ourPath, op } of operations().filter((o) => o.method === 'GET')) {
      const params = op.query ?? [];
      const base = ourPath.replace(
        '{id}',
        String(antonPath.startsWith('/places') ? ids['places:Zürich'] : ids['actors:Luther, Martin']),
      );
      const locked = op.token && antonPath === '/objects';
      const plain = await request(base, { headers: locked ? bearer(t.user) : {} });
      requests++;
      if (plain.status !== 200) problems.push(`${method} ${antonPath}: ${plain.status}`);
      for (const p of params) {
        for (const value of p.enum ?? [sampleOf(p)]) {
          // provider only counts with format=beacon ("Only useful if the format is beacon")
          const query =
            p.name === 'provider' ? `format=beacon&provider=${value}` : `${p.name}=${encodeURIComponent(value)}`;
          const key = `${method} ${antonPath} ${p.name}=${value}`;
          const want = DIFFERENCES[key] ?? 200;
          const r = await request(`${base}?${query}`, { headers: locked ? bearer(t.user) : {} });
          requests++;
          if (r.status !== want) problems.push(`${key}: ${r.status} (expected ${want}) ${r.text.slice(0, 200)}`);
          if (
            want === 422 &&
            !Object.keys((r.body as { fields?: object }).fields ?? {}).some((f) => f.startsWith(p.name))
          ) {
            problems.push(`${key}: the 422 does not name ${p.name}`);
          }
          if (want === 200 && /beacon/.test(query) && !r.text.startsWith('#FORMAT: BEACON\n'))
            problems.push(`${key}: not BEACON`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(requests).toBeGreaterThan(40);
  });

  it('authority_type narrows the actors (value and label), where it used to be ignored', async () => {
    const names = async (q: string) =>
      ((await request(`/api/actors?${q}`)).body as { data: { name: string }[] }).data.map((a) => a.name);
    expect(await names('authority_type=person')).toEqual(['Luther, Martin']);
    expect(await names('authority_type=family')).toEqual(['Müller, Hans']);
    expect(await names('authority_type=K%C3%B6rperschaft')).toEqual(['Lutherische Kirche Zürich']);
  });

  /** A body with every property of a schema, from these samples (a new property fails the test). */
  function bodyOf(schema: string, samples: Record<string, unknown>): Record<string, unknown> {
    const props = propertiesOf(schema);
    expect(
      props.filter((p) => !(p in samples)),
      `${schema}: properties without a sample here`,
    ).toEqual([]);
    return Object.fromEntries(props.map((p) => [p, samples[p]]));
  }

  const ACTOR_SAMPLE = {
    private: false,
    type_id: 1,
    name: 'Zwingli, Huldrych',
    label: { de: 'Zwingli, Huldrych', fr: 'Zwingli, Ulrich' },
    alternative_names: ['Huldericus Zuinglius'],
    variants: ['Ulrich Zwingli'],
    abbreviations: ['H. Z.'],
    anton_date_start: '1.1.1484',
    anton_date_end: '11.10.1531',
    comment: 'Reformer of Zürich',
  };
  const PLACE_SAMPLE = {
    type_id: null,
    name: 'Kappel am Albis',
    label: { de: 'Kappel am Albis' },
    city: 'Kappel am Albis',
    state: 'Zürich',
    address: 'Klosterstrasse',
    country_code_id: 'CH',
    location: '2682000 1232000',
    alternative_names: ['Kappel'],
    variants: ['Cappel'],
    abbreviations: ['KA'],
    comment: 'Battle of Kappel',
  };

  /** `field` set to `value` on each [method, path, key]: refused as DIFFERENCES[key] says, the field named. */
  async function expectRefusedField(
    body: Record<string, unknown>,
    field: string,
    value: unknown,
    targets: readonly (readonly [string, string, string])[],
  ): Promise<void> {
    for (const [method, p, key] of targets) {
      const r = await jsonAsEditor(method, p, { ...body, [field]: value });
      expect(r.status, key).toBe(DIFFERENCES[key]);
      expect((r.body as { fields: object }).fields).toHaveProperty(field);
    }
  }

  it('POST and PUT /actors with ActorInput: every property, taken; private true is the one refusal', async () => {
    const body = bodyOf('ActorInput', ACTOR_SAMPLE);
    const actor = await createAsEditor('/api/actors', body);
    expect(actor).toMatchObject({
      name: 'Zwingli, Huldrych',
      fullname: 'Zwingli, Huldrych',
      type: 'person',
      authority_type: 'person',
      label: { de: 'Zwingli, Huldrych', fr: 'Zwingli, Ulrich' },
      alternative_names: ['Huldericus Zuinglius'],
      variants: ['Ulrich Zwingli'],
      abbreviations: ['H. Z.'],
      date_start: '1484-01-01',
      date_end: '1531-10-11',
      comment: 'Reformer of Zürich',
      full_id: `kr-actors-${String(actor.id)}`,
    });
    const { name: _name, ...labelled } = body; // ActorInput requires only label
    const put = await jsonAsEditor('PUT', `/api/actors/${String(actor.id)}`, {
      ...labelled,
      label: { de: 'Zwingli, Ulrich' },
      type_id: 5,
    });
    expect(put.status, put.text).toBe(200);
    expect((put.body as { data: object }).data).toMatchObject({ name: 'Zwingli, Ulrich', type: 'group' });
    await expectRefusedField(body, 'private', true, [
      ['POST', '/api/actors', 'POST /actors body:private=true'],
      ['PUT', `/api/actors/${String(actor.id)}`, 'PUT /actors/{id} body:private=true'],
    ]);
  });

  it('POST /places and /places/{id} with PlaceInput: every property, taken; a place type_id is the one refusal', async () => {
    const body = bodyOf('PlaceInput', PLACE_SAMPLE);
    const place = await createAsEditor('/api/places', body);
    expect(String(place.location)).toMatch(/^47\.2\d* 8\.5\d*$/);
    expect(place).toMatchObject({
      name: 'Kappel am Albis',
      country_code: 'CH',
      country: 'Switzerland',
      city: 'Kappel am Albis',
      variants: ['Cappel'],
    });
    const changed = await jsonAsEditor('POST', `/api/places/${String(place.id)}`, {
      label: { de: 'Kappel am Albis ZH' },
      country_code_id: 'CH',
    });
    expect((changed.body as { data: object }).data).toMatchObject({ name: 'Kappel am Albis ZH' });
    await expectRefusedField(body, 'type_id', 1, [
      ['POST', '/api/places', 'POST /places body:type_id=1'],
      ['POST', `/api/places/${String(place.id)}`, 'POST /places/{id} body:type_id=1'],
    ]);
  });

  it('POST /ai-cataloging/usage with a UsageReport of every property: 201 {"id"} as documented', async () => {
    const body = bodyOf('UsageReport', {
      provider: 'infomaniak',
      model: 'google/gemma-4-31B-it',
      tokens_in: 1200,
      tokens_out: 300,
      cost_chf: 0.0009,
      success: true,
      latency_ms: 2870,
      profile_slug: 'foto-grunderschliessung',
      entry_uuid: '6f1c2a9e-4b7d-4c1e-9a3f-2d5e8b7c1a0f',
      source: 'agate',
    });
    const r = await jsonAsEditor('POST', '/api/ai-cataloging/usage', body);
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.body as object)).toEqual(['id']);
  });

  it('POST /sips/import with a Bearer token: accepted (202, Anton 200), followed at Location', async () => {
    const r = await request('/api/sips/import', {
      method: 'POST',
      body: sipForm({ identifier: 'KR-SIP-1' }),
      headers: bearer(t.editor),
    });
    expect(r.status, r.text).toBe(202);
    const followed = await request(
      new URL(r.headers.get('location') as string).pathname + new URL(r.headers.get('location') as string).search,
      { headers: bearer(t.user) },
    );
    expect((followed.body as { data: { identifier: string }[] }).data.map((o) => o.identifier)).toEqual(['KR-SIP-1']);
  });

  it('ApiKeyAuth (?api_token=) is refused with 401: the token goes in the Authorization header', async () => {
    const r = await request(`/api/objects?api_token=${'x'.repeat(60)}`);
    expect(r.status).toBe(401);
  });
});
