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
import { loadSchemas } from '../helpers/schemas/json-schemas.js';

const SPEC = path.join(REPO_ROOT, 'test', 'fixtures', 'specs', 'reconciliation-1.0-draft');
const EXAMPLES = path.join(SPEC, 'examples');
const schemas = loadSchemas(path.join(SPEC, 'schemas'));
const { problems } = schemas;

const CANDIDATE = '/properties/results/items/properties/candidates/items';
/** Which schema (and sub-schema) judges each folder of examples: its namesake, but for these. */
const EXAMPLE_SCHEMAS: Record<string, [string, string?]> = {
  'reconciliation-candidate': ['reconciliation-result-batch', CANDIDATE],
  'data-extension-metadata': ['manifest', '/properties/extend'],
  'preview-metadata': ['manifest', '/properties/preview'],
  ...Object.fromEntries(
    [
      'manifest',
      'reconciliation-query-batch',
      'reconciliation-result-batch',
      'suggest-entities-response',
      'suggest-properties-response',
      'suggest-types-response',
      'data-extension-query',
      'data-extension-response',
      'data-extension-property-proposal',
    ].map((folder) => [folder, [folder]]),
  ),
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
const KINDS = ['actors', 'places', 'keywords'] as const;
type Kind = (typeof KINDS)[number];
const root = (kind: Kind) => `/api/${kind}/reconcile/1.0-draft`;
/** The id of a record of each register that has every property. */
const full: Record<string, string> = {};

beforeAll(async () => {
  await loadCatalog(cli(), 'draft-schemas.json', {
    actors: [
      {
        name: 'Lessing, Gotthold Ephraim',
        type: 'person',
        alternative_names: ['G. E. Lessing', 'Лессинг'],
        date_start: '1729-01-22',
        date_end: '1781-02',
        gnd: '118572121',
        comment: 'Dramatist & critic, "Nathan" <1779>',
      },
      { name: 'Lessing, Gotthold Ephraim', type: 'family' },
      { name: "O'Neil <b>bold</b> & \u00a0 \u{1F3AD}", type: 'group' },
    ],
    places: [
      {
        name: 'Basel',
        alternative_names: ['Bâle', 'Basilea'],
        city: 'Basel',
        state: 'Basel-Stadt',
        address: 'Marktplatz 9',
        country_code: 'CH',
        location: '47.5596 7.5886',
        gnd: '4004617-5',
        geonames: '2661604',
        comment: 'On the Rhine <river>',
      },
      { name: "Quote's & <place>" },
    ],
    keywords: [{ name: 'Drama', gnd: '4012782-5' }, 'Tragedy & "comedy"'],
  });
  for (const kind of KINDS) {
    const first = await api.get(`/api/${kind}?perPage=1&sortField=id&sortAsc=1`, t.user);
    full[kind] = String(dataOf<{ id: number }[]>(first)[0]?.id);
  }
});

/** The JSON of a 200 answer, asked with the user's token. */
async function answerOf(pathname: string, body?: unknown): Promise<unknown> {
  const headers = { ...bearer(t.user), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) };
  const r =
    body === undefined
      ? await api.request(pathname, { headers })
      : await api.request(pathname, { method: 'POST', headers, body: JSON.stringify(body) });
  expect([r.status, r.headers.get('content-type')], `${pathname}: ${r.text.slice(0, 300)}`).toEqual([
    200,
    'application/json; charset=utf-8',
  ]);
  return r.body;
}

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
        const m = (await answerOf(root(kind))) as { versions: string[]; authentication?: unknown };
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
        { conditions: [name('Lessing, Gotthold Ephraim')] },
        { conditions: [name('Lesing')], limit: 2 },
        { conditions: [name('G. E. Lessing')], type: 'person' },
        { conditions: [name('Lessing')], type: 'Family' },
        { conditions: [property('gnd', 'https://d-nb.info/gnd/118572121')] },
        { conditions: [{ matchType: 'id', propertyValue: full.actors }] },
        { conditions: [{ matchType: 'id', propertyValue: ['999999', 'x'] }] },
        {
          conditions: [
            name('Lessing'),
            property('date_end', ['1781-02', { id: '1781-02', name: 'February 1781' }], {
              required: true,
              matchQuantifier: 'any',
              matchQualifier: 'ExactMatch',
            }),
            property('unknown', false),
          ],
          lang: 'de',
          dir: 'ltr',
        },
        { conditions: [name("O'Neil <b>")] },
        { conditions: [name('qqqqqq')] },
      ],
      places: [
        { conditions: [name('Bale')] },
        { conditions: [property('geonames', 2661604)] },
        { conditions: [property('state', 'basel-stadt'), property('country_code', ['ch', 'de'])] },
      ],
      keywords: [{ conditions: [name('drama')] }, { conditions: [name('& "comedy"')], limit: 100 }],
    };
    for (const kind of KINDS) {
      const batch = { queries: batches[kind] };
      // The batches sent are themselves valid 1.0-draft query batches.
      expect(problems('reconciliation-query-batch', batch), kind).toEqual([]);
      const answer = (await answerOf(`${root(kind)}/match`, batch)) as { results: { candidates: unknown[] }[] };
      expect(problems('reconciliation-result-batch', answer), kind).toEqual([]);
      expect(answer.results).toHaveLength(batch.queries.length);
      for (const c of answer.results.flatMap((r) => r.candidates))
        expect(problems('reconciliation-result-batch', c, CANDIDATE)).toEqual([]);
      expect(
        answer.results.some((r) => r.candidates.length > 0),
        kind,
      ).toBe(true);
    }
    expect(problems('reconciliation-result-batch', await answerOf(`${root('actors')}/match`, { queries: [] }))).toEqual(
      [],
    );
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
      for (const prefix of ['', 'b', 'Les', 'bâ', '& "', full[kind] as string, '<b>', 'qqqq']) {
        const q = `prefix=${encodeURIComponent(prefix)}`;
        for (const [service, schema] of [
          ['entity', 'suggest-entities-response'],
          ['property', 'suggest-properties-response'],
          ['type', 'suggest-types-response'],
        ] as const) {
          const answer = await answerOf(`${root(kind)}/suggest/${service}?${q}`);
          expect(problems(schema, answer), `${kind} ${service} ${prefix}`).toEqual([]);
        }
      }
      const paged = await answerOf(`${root(kind)}/suggest/entity?prefix=a&offset=1&limit=1`);
      expect(problems('suggest-entities-response', paged)).toEqual([]);
    }
  });

  it('property proposals and data extension answers', async () => {
    const typeIds: Record<Kind, string[]> = {
      actors: ['person', 'group', 'Family'],
      places: ['place'],
      keywords: ['keyword'],
    };
    for (const kind of KINDS) {
      const proposed = new Set<string>();
      for (const type of [...typeIds[kind], 'nothing']) {
        for (const limit of [undefined, 1]) {
          const proposal = (await answerOf(
            `${root(kind)}/extend/propose?type=${type}${limit ? `&limit=${limit}` : ''}`,
          )) as { properties: { id: string }[] };
          expect(problems('data-extension-property-proposal', proposal), `${kind} ${type} ${limit}`).toEqual([]);
          for (const { id } of proposal.properties) proposed.add(id);
        }
      }
      // Every proposed property, for a record with all of them, no record, and no id at all.
      const properties = [...proposed].map((id) => ({ id }));
      expect(properties.length, kind).toBeGreaterThan(1);
      for (const ids of [[full[kind] as string, '424242', '-1'], []]) {
        const query = { ids, properties };
        expect(problems('data-extension-query', query)).toEqual([]);
        const extension = (await answerOf(`${root(kind)}/extend`, query)) as {
          rows: { id: string; properties: { id: string; values: unknown[] }[] }[];
        };
        expect(problems('data-extension-response', extension), kind).toEqual([]);
        expect(extension.rows.map((r) => r.id)).toEqual(ids);
        if (ids.length > 0)
          expect(
            extension.rows[0]?.properties.every((p) => p.values.length > 0),
            kind,
          ).toBe(true);
      }
      const none = await answerOf(`${root(kind)}/extend`, { ids: [], properties: [] });
      expect(problems('data-extension-response', none)).toEqual([]);
    }
  });
});
