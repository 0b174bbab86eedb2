// GET /api/openapi.json and GET /api through a listening daemon: the description is served to
// anyone, cached, describes every route of the access matrix with its parameters, limits,
// answers and access rule, and carries the Anton differences from docs/anton-differences.md.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { displayPath } from '../../src/domain/access.js';
import { ROUTES } from '../../src/http/routes/index.js';
import { loadCatalog, type Reply } from '../helpers/api.js';
import { describedProblems } from '../helpers/schemas/described.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, api, t } = useDaemonWithTokens();

interface Doc {
  openapi: string;
  info: { version: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, unknown> };
}
interface Operation {
  operationId: string;
  security: unknown[];
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
  'x-archivectl-access': { rule: string };
  'x-scope': string | null;
  'x-scope-with-ids'?: string;
}

const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

async function description(): Promise<Doc> {
  const r = await api.get('/api/openapi.json');
  expect(r.status).toBe(200);
  return r.body as Doc;
}

describe('GET /api/openapi.json', () => {
  it('is served without a token, as JSON, cacheable, with an ETag that answers 304', async () => {
    const r = await api.get('/api/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('cache-control')).toBe('no-cache');
    const etag = r.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await api.request('/api/openapi.json', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    // With a token it is the same text.
    expect((await api.get('/api/openapi.json', t.user)).text).toBe(r.text);
  });

  it('is OpenAPI 3.1 of this version, with Bearer as the only security scheme', async () => {
    const doc = await description();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(PACKAGE.version);
    expect(Object.values(doc.components.securitySchemes)).toEqual([
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    ]);
  });

  it('describes every route of the access matrix, with its rule and a unique operationId', async () => {
    const doc = await description();
    const ids = new Set<string>();
    for (const route of ROUTES) {
      const op = doc.paths[displayPath(route.path)]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op?.['x-archivectl-access'].rule).toBe(route.rule);
      expect(ids.has(op?.operationId ?? '')).toBe(false);
      ids.add(op?.operationId ?? '');
      // Open routes ask for nothing; routes opened by a setting accept no token as well.
      if (route.rule === 'open') expect(op?.security).toEqual([]);
      else if (route.rule === 'editor' || route.rule === 'token') expect(op?.security).toEqual([{ bearer: [] }]);
      else expect(op?.security).toContainEqual({});
      // The scope a token needs (a token without scopes has them all).
      expect(op?.['x-scope']).toBe(route.scope);
      expect(op?.['x-scope-with-ids']).toBe(route.scopeWithIds);
    }
    const operations = Object.values(doc.paths).flatMap((p) =>
      Object.keys(p).filter((m) => ['get', 'post', 'put'].includes(m)),
    );
    expect(operations).toHaveLength(ROUTES.length);
  });

  it('gives the list parameters their limits and enums from the schemas the daemon parses with', async () => {
    const doc = await description();
    const params = doc.paths['/api/actors']?.get?.parameters ?? [];
    const of = (name: string) => params.find((p) => p.name === name)?.schema;
    expect(of('perPage')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(of('page')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(of('format')).toMatchObject({ enum: ['json', 'select2', 'beacon'] });
    expect(of('sortField')?.enum).toContain('date_start');
    expect(of('search')).toMatchObject({ maxLength: 255 });
    expect(of('provider')).toMatchObject({ enum: ['gnd', 'sikart'] });
  });

  it('describes bodies with their limits, unknown fields refused, and answers with their envelopes', async () => {
    const doc = await description();
    const create = doc.components.schemas.ActorCreate as {
      properties: Record<string, Record<string, unknown>>;
      additionalProperties: boolean;
    };
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
    // `name`, or none and a label to take it from: disjoint alternatives, the whole still closed.
    expect(doc.components.schemas.ActorCreate?.oneOf).toEqual([
      expect.objectContaining({ required: ['name'] }),
      expect.objectContaining({ required: ['label'], not: expect.objectContaining({ required: ['name'] }) as unknown }),
    ]);
    expect(create.properties.type?.enum).toEqual(expect.arrayContaining(['person', 'software']));
    expect(doc.components.schemas.UsageInput).toMatchObject({
      additionalProperties: false,
      properties: { provider: { minLength: 1, maxLength: 64, pattern: '\\S' } },
    });
    // The survey's refusals, described: name length, location format, blank provider, unknown field.
    const place = doc.components.schemas.PlaceCreate as { properties: Record<string, { description?: string }> };
    expect(place.properties.location?.description).toMatch(/latitude.*longitude/);
    expect(doc.components.schemas.PlaceCreate?.additionalProperties).toBe(false);
    expect((doc.components.schemas.PlaceCreate?.properties as Record<string, unknown>).country_code).toMatchObject({
      enum: expect.arrayContaining(['CH', 'DE', null]) as unknown,
    });
    const post = doc.paths['/api/actors']?.post;
    expect(Object.keys(post?.responses['201']?.headers ?? {})).toEqual(
      expect.arrayContaining(['Location', 'Token-Expiration']),
    );
    expect(post?.responses['422']).toEqual({ $ref: '#/components/responses/Invalid' });
    // A SIP's 202 always names where its ingest is followed (the objects list by identifier).
    const sip = doc.paths['/api/sips/import']?.post?.responses['202']?.headers ?? {};
    expect(sip.Location).toEqual({ $ref: '#/components/headers/SubmissionLocation' });
    expect(
      (doc as unknown as { components: { headers: Record<string, unknown> } }).components.headers.SubmissionLocation,
    ).toMatchObject({ required: true });
    const actor = doc.components.schemas.Actor as {
      properties: Record<string, unknown>;
      additionalProperties: boolean;
    };
    expect(actor.additionalProperties).toBe(false);
    expect(actor.properties.full_id).toMatchObject({ type: 'string' });
    expect(Object.keys(doc.paths['/api/tei/actors']?.get?.responses['200']?.content ?? {})).toEqual([
      'application/tei+xml',
    ]);
    expect(Object.keys(doc.paths['/api/places']?.get?.responses['200']?.content ?? {})).toContain('text/plain');
  });

  it('carries the differences from Anton, from the file the README links to', async () => {
    const doc = await description();
    const text = readFileSync(new URL('../../docs/anton-differences.md', import.meta.url), 'utf8');
    const firstItem = text.split('\n').find((line) => line.startsWith('- **')) ?? 'none';
    expect(doc.info.description).toContain(firstItem);
    expect(readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain('docs/anton-differences.md');
  });
});

describe('every answer of the HTTP tests is judged by the description (test/helpers/schemas/described.ts)', () => {
  it('flags an undocumented field, status, media type or a missing Location', async () => {
    const r = await api.post('/api/actors', { name: 'Described' }, t.editor);
    expect(describedProblems(r)).toEqual([]);
    const body = r.body as { data: Record<string, unknown> };
    const extra = { ...r, body: { data: { ...body.data, secret: 1 } } };
    expect(describedProblems(extra).join()).toMatch(/additional/);
    expect(describedProblems({ ...r, status: 418 }).join()).toMatch(/status not described/);
    const headers = new Headers(r.headers);
    headers.delete('location');
    expect(describedProblems({ ...r, headers }).join()).toMatch(/no Location header/);
    headers.set('content-type', 'text/html');
    expect(describedProblems({ ...r, headers }).join()).toMatch(/text\/html media type/);
  });
});

describe('the reconciliation documents are described field by field', () => {
  beforeAll(async () => {
    await loadCatalog(cli(), 'described.json', {
      actors: [{ name: 'Schiller, Friedrich', type: 'person', gnd: '118607626' }],
    });
  });
  const problems = (r: Reply, body: unknown) => describedProblems({ ...r, body }).join('\n');
  const queries = encodeURIComponent(JSON.stringify({ q0: { query: 'Schiller, Friedrich' } }));

  it('a candidate with an undocumented field, a score of another type or no `match` leaves the description', async () => {
    const r = await api.get(`/api/actors/reconcile?queries=${queries}`, t.user);
    expect(r.status).toBe(200);
    expect(describedProblems(r)).toEqual([]);
    const candidate = (r.body as { q0: { result: Record<string, unknown>[] } }).q0.result[0] ?? {};
    expect(candidate).toMatchObject({ name: 'Schiller, Friedrich', score: 100 });
    const batch = (c: Record<string, unknown>) => ({ q0: { result: [c] } });
    expect(problems(r, batch({ ...candidate, rank: 1 }))).toMatch(/body\/q0\/result\/0 must NOT have additional/);
    expect(problems(r, batch({ ...candidate, score: '100' }))).toMatch(/body\/q0\/result\/0\/score must be integer/);
    expect(problems(r, batch({ ...candidate, score: 100.5 }))).toMatch(/score must be integer/);
    const { match: _, ...unmatched } = candidate;
    expect(problems(r, batch(unmatched))).toMatch(/must have required property 'match'/);
    expect(problems(r, { q0: { result: [candidate], note: 'x' } })).toMatch(/additional/);
  });

  it('so do the manifest, a suggestion, a data extension value and a 1.0-draft result', async () => {
    const manifest = await api.get('/api/actors/reconcile', t.user);
    expect(describedProblems(manifest)).toEqual([]);
    expect(problems(manifest, { ...(manifest.body as object), logo: 'x' })).toMatch(/additional/);
    const suggest = await api.get('/api/actors/reconcile/suggest/entity?prefix=Schil', t.user);
    const [item] = (suggest.body as { result: Record<string, unknown>[] }).result;
    expect(item).toBeDefined();
    const { notable: _, ...plain } = item ?? {};
    expect(problems(suggest, { result: [plain] })).toMatch(/required property 'notable'/);
    const extend = encodeURIComponent(JSON.stringify({ ids: [String(item?.id)], properties: [{ id: 'gnd' }] }));
    const extension = await api.get(`/api/actors/reconcile?extend=${extend}`, t.user);
    expect(describedProblems(extension)).toEqual([]);
    const rows = { [String(item?.id)]: { gnd: [{ int: 118607626 }] } };
    expect(problems(extension, { ...(extension.body as object), rows })).toMatch(/gnd\/0/);
    const match = await api.post(
      '/api/actors/reconcile/1.0-draft/match',
      { queries: [{ conditions: [{ matchType: 'name', propertyValue: 'Schiller' }] }] },
      t.editor,
    );
    expect(match.status, match.text).toBe(200);
    expect(describedProblems(match)).toEqual([]);
    const results = (match.body as { results: { candidates: unknown[] }[] }).results;
    expect(problems(match, { results: [{ ...results[0], features: [] }] })).toMatch(/additional/);
  });

  it('a JSONP answer is judged by its JSON, and its wrapper by the pattern', async () => {
    const r = await api.get('/api/actors/reconcile?callback=cb.done', t.user);
    expect(r.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(describedProblems(r)).toEqual([]);
    const manifest = JSON.parse(/^\/\*\*\/cb\.done\((.*)\);$/s.exec(r.text)?.[1] ?? 'null') as object;
    const text = (value: string) => describedProblems({ ...r, text: value }).join('\n');
    expect(text(`/**/cb.done(${JSON.stringify({ ...manifest, extra: true })});`)).toMatch(/additional/);
    expect(text(`alert(1);cb.done(${JSON.stringify(manifest)});`)).toMatch(/JSONP body/);
  });
});

describe('GET /api', () => {
  it('is an index: name, version, and where to read on, to anyone', async () => {
    const r = await api.get('/api');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      name: 'archivectl',
      version: PACKAGE.version,
      links: {
        description: '/api/openapi.json',
        token: '/api/token',
        reconcile_actors: '/api/actors/reconcile',
        reconcile_places: '/api/places/reconcile',
        reconcile_keywords: '/api/keywords/reconcile',
      },
    });
    for (const link of Object.values((r.body as { links: Record<string, string> }).links)) {
      expect((await api.get(link, t.user)).status, link).toBe(200);
    }
  });
});

describe('archivectl routes', () => {
  it('lists the description and the index as open', async () => {
    const rows = await cli().json<{ method: string; path: string; rule: string; open: boolean }[]>(['routes']);
    expect(rows).toContainEqual({ method: 'GET', path: '/api/openapi.json', rule: 'open', open: true, scope: null });
    expect(rows).toContainEqual({ method: 'GET', path: '/api', rule: 'open', open: true, scope: null });
  });
});
