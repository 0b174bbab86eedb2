// docs/http-api.md#access-rules, the access matrix, through a real listening daemon. Driven from the matrix in the
// code (ROUTES), so a route added there without a request here fails the suite; checked against
// the matrix as docs/http-api.md#access-rules writes it, so a rule changed there by mistake fails too. Every row is
// requested without a token under every combination of public_access and public_api, changed with
// the CLI while the daemon runs, and with a token of every role (ROLES) under one of them. `archivectl routes`
// must say what the daemon does.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Rule, RouteSpec } from '../../src/domain/access.js';
import { ROUTES } from '../../src/http/routes/index.js';
import { ROLES, type Role } from '../../src/domain/roles.js';
import {
  applySettings,
  bearer,
  client,
  comboName,
  dataOf,
  importSip,
  inPool,
  REALM,
  replyProblems,
  roleTokens,
  send,
  SETTINGS_COMBOS,
  sipForm,
  type SettingsCombo,
} from '../helpers/api.js';
import { noSleepClock, useDaemon } from '../helpers/daemon.js';

// POST /api/tokens/revoke answers no sooner than half a second: that wait is not slept here.
const { cli, daemon } = useDaemon({ clock: noSleepClock() });
const api = client(daemon);

// --- the matrix as docs/http-api.md#access-rules writes it ---------------------------------------------------------

const DOCUMENTED_MATRIX: Record<string, { rule: Rule; ruleWithIds?: Rule }> = {
  'GET /api/objects': { rule: 'token_or_public_api' },
  'GET /api/actors': { rule: 'authority' },
  'GET /api/actors/:id': { rule: 'authority' },
  'GET /api/actors/reconcile': { rule: 'authority' },
  'POST /api/actors/reconcile': { rule: 'authority' },
  'GET /api/places': { rule: 'authority' },
  'GET /api/places/:id': { rule: 'authority' },
  'GET /api/places/reconcile': { rule: 'authority' },
  'POST /api/places/reconcile': { rule: 'authority' },
  'GET /api/keywords': { rule: 'authority' },
  'GET /api/keywords/reconcile': { rule: 'authority' },
  'POST /api/keywords/reconcile': { rule: 'authority' },
  'GET /api/tei/actors': { rule: 'authority', ruleWithIds: 'token' },
  'GET /api/tei/places': { rule: 'authority', ruleWithIds: 'token' },
  'GET /api/tei/keywords': { rule: 'authority', ruleWithIds: 'token' },
  'POST /api/actors': { rule: 'editor' },
  'PUT /api/actors/:id': { rule: 'editor' },
  'POST /api/places': { rule: 'editor' },
  'POST /api/places/:id': { rule: 'editor' },
  'POST /api/sips/import': { rule: 'editor' },
  'POST /api/ingest/confirm/:id': { rule: 'editor' },
  'POST /api/ingest/failed/:id': { rule: 'editor' },
  'POST /api/ai-cataloging/usage': { rule: 'editor' },
  'GET /api/tei/refresh': { rule: 'token' },
  // The token lifecycle: the presented token describes itself.
  'GET /api/token': { rule: 'token' },
  // Issue 34: anyone who finds a leaked value reports it.
  'POST /api/tokens/revoke': { rule: 'open' },
  // Issue 35: the API describes itself to anyone (it reveals no data).
  'GET /api': { rule: 'open' },
  'GET /api/openapi.json': { rule: 'open' },
  // Issue 9: the services a reconciliation manifest points to follow the authority rule of the
  // reconciliation endpoint (suggest, data-extension property proposals, preview).
  ...Object.fromEntries(
    ['actors', 'places', 'keywords'].flatMap((kind) =>
      ['suggest/entity', 'suggest/property', 'suggest/type', 'properties', 'preview/:id'].map((service) => [
        `GET /api/${kind}/reconcile/${service}`,
        { rule: 'authority' },
      ]),
    ),
  ),
  // docs/archive-tools.md: the Reconciliation API 1.0-draft services beside 0.2's, under the same rule.
  ...Object.fromEntries(
    ['actors', 'places', 'keywords'].flatMap((kind) =>
      [
        'GET ',
        'POST /match',
        'GET /suggest/entity',
        'GET /suggest/property',
        'GET /suggest/type',
        'GET /preview',
        'POST /extend',
        'GET /extend/propose',
      ].map((route) => {
        const [method, sub] = route.split(' ');
        return [`${method} /api/${kind}/reconcile/1.0-draft${sub}`, { rule: 'authority' }];
      }),
    ),
  ),
};

const EDITOR_OR_HIGHER: readonly Role[] = ['editor', 'admin', 'superuser'];
const BELOW_EDITOR: readonly Role[] = ROLES.filter((r) => r !== 'blocked' && !EDITOR_OR_HIGHER.includes(r));

/**
 * Who makes the `k`-th request of a route under the `c`-th settings combo: no token, a blocked
 * account's and, taking turns, one role below editor and one at or above it. A token's answer does
 * not depend on the settings, so over the four combos every role meets every request.
 */
const probedRoles = (c: number, k: number): (Role | null)[] => [
  null,
  'blocked',
  BELOW_EDITOR[(c + k) % BELOW_EDITOR.length] as Role,
  EDITOR_OR_HIGHER[(c + k) % EDITOR_OR_HIGHER.length] as Role,
];
const PROBES_PER_REQUEST = 4;

const keyOf = (r: Pick<RouteSpec, 'method' | 'path'>) => `${r.method} ${r.path}`;
const display = (p: string) => p.replace(/:(\w+)/g, '{$1}');

/** Whether docs/http-api.md#access-rules serves a request without a token. */
function openWithoutToken(rule: Rule, method: string, s: SettingsCombo): boolean {
  const read = method === 'GET' || method === 'HEAD';
  switch (rule) {
    case 'open':
      return true;
    case 'token_or_public_api':
      return read && s.public_api;
    case 'authority':
      return s.public_access || (read && s.public_api);
    case 'editor':
    case 'token':
      return false;
  }
}

/** The status docs/http-api.md#access-rules give a request made with `role` (null: no token). */
function expectedStatus(rule: Rule, method: string, s: SettingsCombo, role: Role | null, success: number): number {
  if (role === 'blocked') return 403; // every request with a blocked account's token
  if (role === null) return openWithoutToken(rule, method, s) ? success : 401;
  if (rule === 'editor' && !EDITOR_OR_HIGHER.includes(role)) return 403;
  return success;
}

// --- a valid request for every route ------------------------------------------------------------

interface Fixture {
  tokens: Record<Role, string>;
  actor: number;
  place: number;
  keyword: number;
  /** A SIP submission in status `received`, new on every call. */
  received(): Promise<number>;
}

type Body = () => { body: BodyInit; type?: string };
interface Variant {
  path: string | (() => Promise<string>);
  body?: Body;
  /** The query carries `ids` (the route's ruleWithIds applies). */
  ids?: boolean;
}

const json =
  (value: unknown): Body =>
  () => ({ body: JSON.stringify(value), type: 'application/json' });
const form =
  (fields: Record<string, string>): Body =>
  () => ({ body: new URLSearchParams(fields).toString(), type: 'application/x-www-form-urlencoded' });

const QUERIES = { q0: { query: 'Matrix' } };
const Q = encodeURIComponent(JSON.stringify(QUERIES));
const EXTEND = { ids: ['1'], properties: [{ id: 'name' }] };
const reconcileGet = (kind: string): Variant[] => [
  { path: `/api/${kind}/reconcile` },
  { path: `/api/${kind}/reconcile?queries=${Q}` },
  { path: `/api/${kind}/reconcile?extend=${encodeURIComponent(JSON.stringify(EXTEND))}` },
];
const reconcilePost = (kind: string): Variant[] => [
  { path: `/api/${kind}/reconcile`, body: json({ queries: QUERIES }) },
  { path: `/api/${kind}/reconcile`, body: form({ queries: JSON.stringify(QUERIES) }) },
  { path: `/api/${kind}/reconcile`, body: form({ extend: JSON.stringify(EXTEND) }) },
];
/** The services beside each reconciliation endpoint, with a request that succeeds. */
const reconcileServices = (kind: 'actors' | 'places' | 'keywords'): Record<string, (f: Fixture) => Variant[]> => ({
  [`GET /api/${kind}/reconcile/suggest/entity`]: () => [
    { path: `/api/${kind}/reconcile/suggest/entity?prefix=matrix` },
  ],
  [`GET /api/${kind}/reconcile/suggest/property`]: () => [
    { path: `/api/${kind}/reconcile/suggest/property?prefix=gnd` },
  ],
  [`GET /api/${kind}/reconcile/suggest/type`]: () => [{ path: `/api/${kind}/reconcile/suggest/type?prefix=p` }],
  [`GET /api/${kind}/reconcile/properties`]: () => [{ path: `/api/${kind}/reconcile/properties` }],
  [`GET /api/${kind}/reconcile/preview/:id`]: (f) => [
    { path: `/api/${kind}/reconcile/preview/${kind === 'actors' ? f.actor : kind === 'places' ? f.place : f.keyword}` },
  ],
});
/** The 1.0-draft services of each register, with a request that succeeds. */
const draftServices = (kind: 'actors' | 'places' | 'keywords'): Record<string, (f: Fixture) => Variant[]> => {
  const root = `/api/${kind}/reconcile/1.0-draft`;
  const id = (f: Fixture) => (kind === 'actors' ? f.actor : kind === 'places' ? f.place : f.keyword);
  return {
    [`GET ${root}`]: () => [{ path: root }],
    [`POST ${root}/match`]: () => [
      {
        path: `${root}/match`,
        body: json({ queries: [{ conditions: [{ matchType: 'name', propertyValue: 'Matrix' }] }] }),
      },
    ],
    [`GET ${root}/suggest/entity`]: () => [{ path: `${root}/suggest/entity?prefix=matrix` }],
    [`GET ${root}/suggest/property`]: () => [{ path: `${root}/suggest/property?prefix=gnd` }],
    [`GET ${root}/suggest/type`]: () => [{ path: `${root}/suggest/type?prefix=` }],
    [`GET ${root}/preview`]: (f) => [{ path: `${root}/preview?id=${id(f)}` }],
    [`POST ${root}/extend`]: (f) => [
      { path: `${root}/extend`, body: json({ ids: [String(id(f))], properties: [{ id: 'name' }] }) },
    ],
    [`GET ${root}/extend/propose`]: () => [
      { path: `${root}/extend/propose?type=${kind === 'actors' ? 'person' : kind === 'places' ? 'place' : 'keyword'}` },
    ],
  };
};
const USAGE = { provider: 'x', model: 'y', tokens_in: 1, tokens_out: 2, cost_chf: 0.01, success: true };

const REQUESTS: Record<string, (f: Fixture) => Variant[]> = {
  'GET /api/objects': () => [{ path: '/api/objects' }, { path: '/api/objects?format=select2&search=matrix' }],
  'GET /api/actors': () => [
    { path: '/api/actors' },
    { path: '/api/actors?format=select2&search=matrix' },
    { path: '/api/actors?format=beacon' },
  ],
  'GET /api/actors/:id': (f) => [{ path: `/api/actors/${f.actor}` }],
  'GET /api/actors/reconcile': () => reconcileGet('actors'),
  'POST /api/actors/reconcile': () => reconcilePost('actors'),
  'GET /api/places': () => [
    { path: '/api/places' },
    { path: '/api/places?format=select2' },
    { path: '/api/places?format=beacon' },
    { path: '/api/places?format=beacon&provider=geonames' },
  ],
  'GET /api/places/:id': (f) => [{ path: `/api/places/${f.place}` }],
  'GET /api/places/reconcile': () => reconcileGet('places'),
  'POST /api/places/reconcile': () => reconcilePost('places'),
  'GET /api/keywords': () => [{ path: '/api/keywords' }, { path: '/api/keywords?format=select2&search=matrix' }],
  'GET /api/keywords/reconcile': () => reconcileGet('keywords'),
  'POST /api/keywords/reconcile': () => reconcilePost('keywords'),
  'GET /api/tei/actors': (f) => [{ path: '/api/tei/actors' }, { path: `/api/tei/actors?ids=${f.actor}`, ids: true }],
  'GET /api/tei/places': (f) => [{ path: '/api/tei/places' }, { path: `/api/tei/places?ids=${f.place}`, ids: true }],
  'GET /api/tei/keywords': (f) => [
    { path: '/api/tei/keywords' },
    { path: `/api/tei/keywords?ids=${f.keyword}`, ids: true },
  ],
  'GET /api/tei/refresh': () => [{ path: '/api/tei/refresh' }],
  'GET /api/token': () => [{ path: '/api/token' }],
  // A value that is no token: answered like any other, and not counted against the report limit.
  'POST /api/tokens/revoke': () => [{ path: '/api/tokens/revoke', body: json({ credentials: ['arc_not_a_token'] }) }],
  'GET /api': () => [{ path: '/api' }],
  'GET /api/openapi.json': () => [{ path: '/api/openapi.json' }],
  'POST /api/actors': () => [{ path: '/api/actors', body: json({ name: 'Matrix created actor' }) }],
  'PUT /api/actors/:id': (f) => [
    { path: `/api/actors/${f.actor}`, body: json({ comment: 'changed by the matrix test' }) },
  ],
  'POST /api/places': () => [
    { path: '/api/places', body: json({ name: 'Matrix created place', location: '47.37 8.54' }) },
  ],
  'POST /api/places/:id': (f) => [
    { path: `/api/places/${f.place}`, body: json({ comment: 'changed by the matrix test' }) },
  ],
  'POST /api/sips/import': () => [{ path: '/api/sips/import', body: () => ({ body: sipForm() }) }],
  'POST /api/ingest/confirm/:id': (f) => [{ path: async () => `/api/ingest/confirm/${await f.received()}` }],
  'POST /api/ingest/failed/:id': (f) => [
    { path: async () => `/api/ingest/failed/${await f.received()}`, body: json({ reason: 'checksum mismatch' }) },
  ],
  'POST /api/ai-cataloging/usage': () => [{ path: '/api/ai-cataloging/usage', body: json(USAGE) }],
  ...reconcileServices('actors'),
  ...reconcileServices('places'),
  ...reconcileServices('keywords'),
  ...draftServices('actors'),
  ...draftServices('places'),
  ...draftServices('keywords'),
};

/** The status of a request that is let through. */
const SUCCESS: Record<string, number> = {
  'POST /api/actors': 201,
  'POST /api/places': 201,
  'POST /api/sips/import': 202,
  'POST /api/ai-cataloging/usage': 201,
  'POST /api/tokens/revoke': 202,
};
const successOf = (spec: RouteSpec) => SUCCESS[keyOf(spec)] ?? 200;

// --- fixture ------------------------------------------------------------------------------------

let fixture: Fixture | undefined;

beforeAll(async () => {
  const tokens = await roleTokens(cli());
  const file = path.join(cli().dir, 'matrix-catalog.json');
  await writeFile(
    file,
    JSON.stringify({
      actors: [{ name: 'Matrix, Person', type: 'person', gnd: '118540238' }],
      places: [{ name: 'Matrix Place', location: '47.37 8.54', gnd: '4068038-8', geonames: '2657896' }],
      keywords: ['Matrix keyword'],
      objects: [{ identifier: 'MATRIX-1', title: 'Matrix object', keywords: ['Matrix keyword'] }],
    }),
  );
  expect(await cli().json(['catalog', 'load', file])).toMatchObject({ actors: 1, places: 1, keywords: 1, objects: 1 });
  const actors = dataOf<{ id: number }[]>(await api.get('/api/actors?search=matrix', tokens.editor));
  const places = dataOf<{ id: number }[]>(await api.get('/api/places?search=matrix', tokens.editor));
  expect(actors).toHaveLength(1);
  const keywords = dataOf<{ id: number }[]>(await api.get('/api/keywords?search=matrix', tokens.editor));
  expect(places).toHaveLength(1);
  expect(keywords).toHaveLength(1);
  fixture = {
    tokens,
    actor: (actors[0] as { id: number }).id,
    place: (places[0] as { id: number }).id,
    keyword: (keywords[0] as { id: number }).id,
    received: async () => (await importSip(api, tokens.editor)).id,
  };
});

const fx = (): Fixture => {
  if (!fixture) throw new Error('fixture not ready');
  return fixture;
};

// --- running the probes -------------------------------------------------------------------------

interface Outcome {
  label: string;
  status: number;
  problems: string[];
}

/** One request of a route variant with `method` (HEAD for a GET variant) and `token`. */
async function probe(
  variant: Variant,
  method: string,
  token: string | undefined,
): Promise<Outcome & { wwwAuthenticate: string | null }> {
  const p = typeof variant.path === 'string' ? variant.path : await variant.path();
  const headers: Record<string, string> = { ...bearer(token) };
  let body: BodyInit | undefined;
  if (variant.body && method !== 'GET' && method !== 'HEAD') {
    const b = variant.body();
    body = b.body;
    if (b.type) headers['Content-Type'] = b.type;
  }
  const r = await send(daemon(), p, { method, headers, ...(body === undefined ? {} : { body }) });
  return {
    label: `${method} ${p}`,
    status: r.status,
    problems: replyProblems(r),
    wwwAuthenticate: r.headers.get('www-authenticate'),
  };
}

/** Every variant of every ROUTES row whose rule is in `rules`, with no token and the probed roles' tokens. */
async function checkRoutes(
  rules: readonly Rule[],
  s: SettingsCombo,
): Promise<{ problems: string[]; requests: number }> {
  const f = fx();
  const c = SETTINGS_COMBOS.indexOf(s);
  const tasks: (() => Promise<string[]>)[] = [];
  for (const spec of ROUTES) {
    const variants = REQUESTS[keyOf(spec)]?.(f) ?? [];
    let k = 0;
    for (const variant of variants) {
      const rule = variant.ids ? (spec.ruleWithIds ?? spec.rule) : spec.rule;
      if (!rules.includes(rule)) continue;
      const methods = spec.method === 'GET' ? ['GET', 'HEAD'] : [spec.method];
      for (const method of methods) {
        for (const role of probedRoles(c, k++)) {
          tasks.push(async () => {
            const want = expectedStatus(rule, method, s, role, successOf(spec));
            const out = await probe(variant, method, role === null ? undefined : f.tokens[role]);
            const who = role === null ? 'no token' : `${role} token`;
            const problems = out.problems.map((p) => `${who}: ${p}`);
            if (out.status !== want) problems.push(`${out.label} with ${who}: expected ${want}, got ${out.status}`);
            if (role === null && want === 401 && out.wwwAuthenticate !== REALM) {
              problems.push(`${out.label} with no token: WWW-Authenticate is ${JSON.stringify(out.wwwAuthenticate)}`);
            }
            return problems;
          });
        }
      }
    }
  }
  const results = await inPool(tasks, 8);
  return { problems: results.flat(), requests: tasks.length };
}

// --- the tests ----------------------------------------------------------------------------------

/** The rules whose rows the tests of each combo probe with checkRoutes (rule 'open' is not among them). */
const PROBED_WITHOUT_TOKEN: readonly Rule[] = ['editor', 'authority', 'token_or_public_api', 'token'];

describe('the matrix in the code', () => {
  it('ROUTES holds exactly the rows of docs/http-api.md#access-rules with their rules', () => {
    const inCode = Object.fromEntries(
      ROUTES.map((r) => [keyOf(r), r.ruleWithIds ? { rule: r.rule, ruleWithIds: r.ruleWithIds } : { rule: r.rule }]),
    );
    expect(inCode).toEqual(DOCUMENTED_MATRIX);
    expect(ROUTES).toHaveLength(Object.keys(DOCUMENTED_MATRIX).length); // no row twice
  });

  it('has a request for every row, and a request with ids for every row with ruleWithIds', () => {
    const f: Fixture = {
      tokens: {} as Record<Role, string>,
      actor: 1,
      place: 1,
      keyword: 1,
      received: () => Promise.resolve(1),
    };
    for (const spec of ROUTES) {
      const variants = REQUESTS[keyOf(spec)]?.(f);
      expect(variants?.length ?? 0, `no request for ${keyOf(spec)}: add one to REQUESTS`).toBeGreaterThan(0);
      expect(
        variants?.some((v) => !v.ids),
        `${keyOf(spec)} without ids`,
      ).toBe(true);
      if (spec.ruleWithIds)
        expect(
          variants?.some((v) => v.ids),
          `${keyOf(spec)} with ids`,
        ).toBe(true);
    }
    for (const key of Object.keys(REQUESTS))
      expect(
        ROUTES.some((r) => keyOf(r) === key),
        `${key} is not in ROUTES`,
      ).toBe(true);
  });
});

for (const combo of SETTINGS_COMBOS) {
  describe(`with ${comboName(combo)}`, () => {
    beforeAll(async () => {
      await applySettings(cli(), combo);
    });

    it('write routes: 401 without a token, 403 below editor (and blocked), success for editor, admin and superuser', async () => {
      const { problems, requests } = await checkRoutes(['editor'], combo);
      expect(problems).toEqual([]);
      expect(requests).toBe(ROUTES.filter((r) => r.rule === 'editor').length * PROBES_PER_REQUEST);
    });

    it('authority routes: GET and HEAD open per public_access or public_api, POST reconcile per public_access only; any role may', async () => {
      const { problems, requests } = await checkRoutes(['authority'], combo);
      expect(problems).toEqual([]);
      expect(requests).toBeGreaterThan(0);
    });

    it('GET /api/objects: open (GET and HEAD) only while public_api is on; any role may', async () => {
      const { problems, requests } = await checkRoutes(['token_or_public_api'], combo);
      expect(problems).toEqual([]);
      expect(requests).toBeGreaterThan(0);
    });

    it('GET /api/tei/refresh and TEI with ids: 401 without a token whatever the settings; any role may', async () => {
      const { problems, requests } = await checkRoutes(['token'], combo);
      expect(problems).toEqual([]);
      // GET and HEAD of each: /api/tei/refresh, /api/token and the three exports with ids
      expect(requests).toBe(
        2 * ROUTES.filter((r) => r.rule === 'token' || r.ruleWithIds === 'token').length * PROBES_PER_REQUEST,
      );
    });

    it('archivectl routes --json lists the rows of ROUTES and says what the daemon answers without a token', async () => {
      const rows = await cli().json<
        { method: string; path: string; rule: string; open: boolean; scope: string | null }[]
      >(['routes']);
      for (const row of rows) {
        expect(Object.keys(row).sort()).toEqual(['method', 'open', 'path', 'rule', 'scope']);
        expect(typeof row.rule).toBe('string');
        expect(row.rule.length).toBeGreaterThan(0);
        expect(typeof row.open).toBe('boolean');
      }
      // Exactly the rows of ROUTES, in order, with {id}; plus one "?ids" row per route with ruleWithIds.
      const plain = rows.filter((r) => !r.path.includes('?')).map((r) => `${r.method} ${r.path}`);
      expect(plain).toEqual(ROUTES.map((r) => `${r.method} ${display(r.path)}`));
      const withIds = rows.filter((r) => r.path.includes('?'));
      expect(withIds.map((r) => `${r.method} ${r.path.replace(/\?.*$/, '')}`).sort()).toEqual(
        ROUTES.filter((r) => r.ruleWithIds)
          .map((r) => `${r.method} ${display(r.path)}`)
          .sort(),
      );
      for (const r of withIds) expect(r.path).toMatch(/\?ids\b/);

      const f = fx();
      const problems: string[] = [];
      await inPool(
        rows.map((row) => async () => {
          const ids = row.path.includes('?');
          const base = row.path.replace(/\?.*$/, '');
          const spec = ROUTES.find((r) => r.method === row.method && display(r.path) === base);
          if (!spec) {
            problems.push(`${row.method} ${row.path}: not in ROUTES`);
            return;
          }
          const rule = ids ? (spec.ruleWithIds ?? spec.rule) : spec.rule;
          if (row.rule !== rule)
            problems.push(`${row.method} ${row.path}: routes says rule ${row.rule}, ROUTES says ${rule}`);
          if (row.open !== openWithoutToken(rule, row.method, combo)) {
            problems.push(`${row.method} ${row.path}: routes says open=${row.open}, the docs say ${!row.open}`);
          }
          // A row of a rule the tests above probe had every variant, GET and HEAD, answered as
          // openWithoutToken says under this combo; `open` was just held to it. The rest is asked here.
          if (PROBED_WITHOUT_TOKEN.includes(rule)) return;
          const variant = REQUESTS[keyOf(spec)]?.(f).find((v) => Boolean(v.ids) === ids);
          if (!variant) return; // reported by the test above
          for (const method of row.method === 'GET' ? ['GET', 'HEAD'] : [row.method]) {
            const out = await probe(variant, method, undefined);
            problems.push(...out.problems);
            const want = row.open ? successOf(spec) : 401;
            if (out.status !== want)
              problems.push(`${out.label}: routes says open=${row.open}, the daemon answers ${out.status}`);
          }
        }),
        6,
      );
      expect(problems).toEqual([]);

      const human = await cli().run(['routes']);
      expect(human.code, human.stderr).toBe(0);
      for (const row of rows) expect(human.stdout).toContain(row.path);
      expect(`${human.stdout}${human.stderr}`).toContain(`public_access ${combo.public_access ? 'on' : 'off'}`);
    });
  });
}
