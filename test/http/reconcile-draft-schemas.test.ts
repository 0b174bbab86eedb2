// Every answer of the Reconciliation API 1.0-draft services of a running daemon, validated with
// ajv against the draft's JSON Schemas as published (test/fixtures/specs/reconciliation-1.0-draft,
// loaded as they are): manifests, result batches, suggest answers, property proposals and data
// extension answers. First the validator must agree with every verdict of the spec's own
// examples; then the spec's example query batches are sent to the daemon, which must answer the
// valid ones and refuse the invalid ones with 422.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { applySettings, bearer, dataOf, loadCatalog } from '../helpers/api.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { useDaemonWithTokens } from '../helpers/http.js';
import { loadSchemas } from '../helpers/json-schemas.js';

const SPEC = path.join(REPO_ROOT, 'test', 'fixtures', 'specs', 'reconciliation-1.0-draft');
const EXAMPLES = path.join(SPEC, 'examples');
const schemas = loadSchemas(path.join(SPEC, 'schemas'));
const { problems } = schemas;

const CANDIDATE = '/properties/results/items/properties/candidates/items';
/** Which schema (and sub-schema) judges each folder of examples. */
const EXAMPLE_SCHEMAS: Record<string, [string, string?]> = {
  manifest: ['manifest'],
  'reconciliation-query-batch': ['reconciliation-query-batch'],
  'reconciliation-result-batch': ['reconciliation-result-batch'],
  'reconciliation-candidate': ['reconciliation-result-batch', CANDIDATE],
  'suggest-entities-response': ['suggest-entities-response'],
  'suggest-properties-response': ['suggest-properties-response'],
  'suggest-types-response': ['suggest-types-response'],
  'data-extension-query': ['data-extension-query'],
  'data-extension-response': ['data-extension-response'],
  'data-extension-property-proposal': ['data-extension-property-proposal'],
  'data-extension-metadata': ['manifest', '/properties/extend'],
  'preview-metadata': ['manifest', '/properties/preview'],
};
/** What the manifest's `authentication` is checked with: Swagger 2.0's security scheme. */
const SECURITY_SCHEME: [string, string] = ['openapi', '/definitions/securityDefinitions/additionalProperties'];

describe('the validator', () => {
  it('agrees with the verdict of every example of the draft', () => {
    const { disagreements, judged } = schemas.replay(EXAMPLES, EXAMPLE_SCHEMAS);
    expect(disagreements).toEqual([]);
    // Every JSON example of the draft was judged (none sits in a folder without a schema).
    const all = (dir: string): number =>
      readdirSync(dir, { withFileTypes: true }).reduce(
        (n, e) => n + (e.isDirectory() ? all(path.join(dir, e.name)) : e.name.endsWith('.json') ? 1 : 0),
        0,
      );
    expect(judged + all(path.join(EXAMPLES, 'security-scheme'))).toBe(all(EXAMPLES));
    expect(judged).toBeGreaterThanOrEqual(50);
  });

  it("judges security schemes as the draft's schema does: Swagger 2.0's, so its OpenAPI 3 example is not one", () => {
    // The draft's text cites OpenAPI for security schemes and shows an OpenAPI 3 `http` scheme,
    // but its manifest schema refers to Swagger 2.0's, which has no `http` type. The manifest's
    // `apiKey` scheme (the one the daemon sends) is valid under both.
    const example = (file: string) =>
      JSON.parse(readFileSync(path.join(EXAMPLES, 'security-scheme', 'valid', file), 'utf8')) as unknown;
    expect(problems(SECURITY_SCHEME[0], example('api_key.json'), SECURITY_SCHEME[1])).toEqual([]);
    expect(problems(SECURITY_SCHEME[0], example('http_basic_auth.json'), SECURITY_SCHEME[1])).not.toEqual([]);
  });
});

// --- a daemon's answers -------------------------------------------------------------------------

const { cli, api, t } = useDaemonWithTokens();
const entity: Record<string, string> = {};
const KINDS = ['actors', 'places', 'keywords'] as const;
type Kind = (typeof KINDS)[number];
const root = (kind: Kind) => `/api/${kind}/reconcile/1.0-draft`;

beforeAll(async () => {
  await loadCatalog(cli(), 'draft-schemas.json', {
    actors: [
      {
        name: 'Schiller, Friedrich',
        type: 'person',
        alternative_names: ['Friedrich von Schiller'],
        date_start: '1759-11-10',
        date_end: '1805',
        gnd: '118607626',
        comment: 'Poet "and" <playwright>',
      },
      { name: 'Schiller, Friedrich', type: 'person' },
      { name: "Odd <i>&amp;</i> 'name' \u0085 \u00a0 😀", type: 'family' },
    ],
    places: [
      {
        name: 'Zürich',
        city: 'Zürich',
        country_code: 'CH',
        location: '47.37 8.54',
        gnd: '4068038-8',
        geonames: '2657896',
      },
      { name: 'Nowhere <at> "all"' },
    ],
    keywords: [{ name: 'Letters', gnd: '4008849-2' }, 'R&D <keywords>'],
  });
  for (const kind of KINDS)
    entity[kind] = String(
      (dataOf<{ id: number }[]>(await api.get(`/api/${kind}?perPage=1`, t.user))[0] as { id: number }).id,
    );
});

async function json(pathname: string, init?: RequestInit): Promise<unknown> {
  const r = await api.request(pathname, {
    ...init,
    headers: { ...bearer(t.user), ...(init?.headers as Record<string, string> | undefined) },
  });
  expect(r.status, `${pathname}: ${r.text.slice(0, 300)}`).toBe(200);
  expect(r.headers.get('content-type'), pathname).toMatch(/^application\/json/);
  return r.body;
}

const post = (pathname: string, value: unknown) =>
  json(pathname, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });

const name = (propertyValue: string) => ({ matchType: 'name', propertyValue });
const property = (propertyId: string, propertyValue: unknown, extra: Record<string, unknown> = {}) => ({
  matchType: 'property',
  propertyId,
  propertyValue,
  ...extra,
});

describe('answers of a running daemon against the 1.0-draft schemas', () => {
  it('manifests, with and without the authentication scheme', async () => {
    for (const combo of [
      { public_access: false, public_api: false },
      { public_access: false, public_api: true },
      { public_access: true, public_api: false },
    ]) {
      await applySettings(cli(), combo);
      for (const kind of KINDS) {
        const m = (await json(root(kind))) as { versions: string[]; authentication?: unknown };
        expect(problems('manifest', m), `${kind} ${JSON.stringify(combo)}`).toEqual([]);
        expect(m.versions).toContain('1.0-draft');
        expect('authentication' in m).toBe(!combo.public_access);
        if (m.authentication) expect(problems(SECURITY_SCHEME[0], m.authentication, SECURITY_SCHEME[1])).toEqual([]);
      }
    }
    await applySettings(cli(), { public_access: false, public_api: false });
  });

  it('result batches: names, typos, namesakes, alternative names, types, ids, properties, empty batches', async () => {
    const batches: Record<Kind, Record<string, unknown>[]> = {
      actors: [
        { conditions: [name('Schiller, Friedrich')] },
        { conditions: [name('Schiler')], limit: 3 },
        { conditions: [name('Friedrich von Schiller')], type: 'person' },
        { conditions: [name('Schiller')], type: 'Corporate body' },
        { conditions: [property('gnd', 'https://d-nb.info/gnd/118607626')] },
        { conditions: [{ matchType: 'id', propertyValue: entity.actors }] },
        { conditions: [{ matchType: 'id', propertyValue: ['999999', 'x'] }] },
        {
          conditions: [
            name('Schiller'),
            property('date_start', ['1759-11-10', { id: '1759-11-10', name: 'x' }], {
              required: true,
              matchQuantifier: 'any',
              matchQualifier: 'ExactMatch',
            }),
            property('unknown', true),
          ],
          lang: 'de',
          dir: 'ltr',
        },
        { conditions: [name('Odd <i>')] },
        { conditions: [name('zzzzzz')] },
      ],
      places: [
        { conditions: [name('Zurich')] },
        { conditions: [property('geonames', 2657896)] },
        { conditions: [property('city', 'zürich'), property('country_code', 'ch')] },
      ],
      keywords: [{ conditions: [name('letters')] }, { conditions: [name('R&D')], limit: 100 }],
    };
    for (const kind of KINDS) {
      const batch = { queries: batches[kind] };
      // The batches sent are themselves valid 1.0-draft query batches.
      expect(problems('reconciliation-query-batch', batch), kind).toEqual([]);
      const answer = (await post(`${root(kind)}/match`, batch)) as { results: { candidates: unknown[] }[] };
      expect(problems('reconciliation-result-batch', answer), kind).toEqual([]);
      expect(answer.results).toHaveLength(batch.queries.length);
      for (const c of answer.results.flatMap((r) => r.candidates))
        expect(problems('reconciliation-result-batch', c, CANDIDATE)).toEqual([]);
      expect(
        answer.results.some((r) => r.candidates.length > 0),
        kind,
      ).toBe(true);
    }
    expect(problems('reconciliation-result-batch', await post(`${root('actors')}/match`, { queries: [] }))).toEqual([]);
  });

  it("answers the draft's valid example batches, and refuses its invalid ones with 422", async () => {
    for (const verdict of ['valid', 'invalid'] as const) {
      const dir = path.join(EXAMPLES, 'reconciliation-query-batch', verdict);
      for (const file of readdirSync(dir)) {
        const text = readFileSync(path.join(dir, file), 'utf8');
        const r = await api.request(`${root('actors')}/match`, {
          method: 'POST',
          headers: { ...bearer(t.user), 'Content-Type': 'application/json' },
          body: text,
        });
        if (verdict === 'invalid') {
          expect(r.status, `${file}: ${r.text}`).toBe(422);
          expect((r.body as { fields?: object }).fields, file).toBeTypeOf('object');
          continue;
        }
        expect(r.status, `${file}: ${r.text}`).toBe(200);
        expect(problems('reconciliation-result-batch', r.body), file).toEqual([]);
        const sent = JSON.parse(text) as { queries: unknown[] };
        expect((r.body as { results: unknown[] }).results, file).toHaveLength(sent.queries.length);
      }
    }
  });

  it('suggest answers for entities, properties and types, with offsets', async () => {
    for (const kind of KINDS) {
      for (const prefix of ['', 's', 'Sch', 'zür', 'r&d', entity[kind] as string, '<i>', 'zzzz']) {
        const q = `prefix=${encodeURIComponent(prefix)}`;
        for (const [service, schema] of [
          ['entity', 'suggest-entities-response'],
          ['property', 'suggest-properties-response'],
          ['type', 'suggest-types-response'],
        ] as const) {
          const answer = await json(`${root(kind)}/suggest/${service}?${q}`);
          expect(problems(schema, answer), `${kind} ${service} ${prefix}`).toEqual([]);
        }
      }
      const paged = await json(`${root(kind)}/suggest/entity?prefix=s&offset=1&limit=1`);
      expect(problems('suggest-entities-response', paged)).toEqual([]);
    }
  });

  it('property proposals and data extension answers', async () => {
    const types: Record<Kind, string[]> = {
      actors: ['person', 'corporate_body', 'place'],
      places: ['place'],
      keywords: ['keyword'],
    };
    for (const kind of KINDS) {
      const proposals: { properties: { id: string }[] }[] = [];
      for (const type of types[kind]) {
        for (const limit of ['', '&limit=2']) {
          const answer = (await json(`${root(kind)}/extend/propose?type=${type}${limit}`)) as {
            properties: { id: string }[];
          };
          expect(problems('data-extension-property-proposal', answer), `${kind} ${type}${limit}`).toEqual([]);
          proposals.push(answer);
        }
      }
      // Every proposed property, for a record, a record without values and unknown ids.
      const query = {
        ids: [entity[kind] as string, '999999', 'x'],
        properties: (proposals[0]?.properties ?? []).map((p) => ({ id: p.id })),
      };
      expect(query.properties.length).toBeGreaterThan(1);
      expect(problems('data-extension-query', query)).toEqual([]);
      const answer = (await post(`${root(kind)}/extend`, query)) as {
        meta: { id: string }[];
        rows: { id: string; properties: { id: string }[] }[];
      };
      expect(problems('data-extension-response', answer), kind).toEqual([]);
      expect(answer.meta.map((m) => m.id)).toEqual(query.properties.map((p) => p.id));
      expect(answer.rows.map((r) => r.id)).toEqual(query.ids);
      for (const row of answer.rows) expect(row.properties.map((p) => p.id)).toEqual(query.properties.map((p) => p.id));
      expect(
        problems('data-extension-response', await post(`${root(kind)}/extend`, { ids: [], properties: [] })),
      ).toEqual([]);
    }
  });
});
