// Every answer of the reconciliation services of a running daemon, validated against the W3C
// Reconciliation API 0.2 JSON Schemas as published (copies in test/fixtures/specs/reconciliation-0.2,
// loaded as they are, $refs resolved between them), with ajv: manifests, result batches,
// suggest answers, property proposals and data extension answers; the preview page checked to
// be well-formed (jing) with its names escaped. First the validator itself must agree with
// every verdict of the spec's own examples.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySettings, bearer, dataOf, loadCatalog } from '../helpers/api.js';
import { withSandboxDb } from '../helpers/cli.js';
import { useDaemonWithTokens } from '../helpers/http.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';

const SPEC = fileURLToPath(new URL('../fixtures/specs/reconciliation-0.2', import.meta.url));
const SCHEMAS = path.join(SPEC, 'schemas');
const EXAMPLES = path.join(SPEC, 'examples');
const JING = systemTool('jing', 'jing');

// --- the validator -----------------------------------------------------------------------------

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
// strict: false: the published files use `definitions` inside a property and a `$schema` URI
// ajv does not know; strictness is about how schemas are written, not how data is checked.
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
/** Schema file name (without .json) → its $id. */
const ids: Record<string, string> = {};
for (const file of readdirSync(SCHEMAS).filter((f) => f.endsWith('.json'))) {
  const schema = JSON.parse(readFileSync(path.join(SCHEMAS, file), 'utf8')) as Record<string, unknown>;
  delete schema.$schema; // "http://json-schema.org/schema#": the latest draft, which ajv's default is
  ajv.addSchema(schema);
  ids[file.replace(/\.json$/, '')] = String(schema.$id);
}

function validator(name: string, pointer = ''): ValidateFunction {
  const id = ids[name];
  if (!id) throw new Error(`no schema ${name}`);
  const v = ajv.getSchema(`${id.replace(/#$/, '')}${pointer ? `#${pointer}` : ''}`);
  if (!v) throw new Error(`no schema ${name}${pointer}`);
  return v;
}

/** The validation errors of `data` (empty when it is valid). */
function problems(name: string, data: unknown, pointer = ''): string[] {
  const v = validator(name, pointer);
  return v(data)
    ? []
    : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** Which schema (and sub-schema) judges each folder of examples. */
const EXAMPLE_SCHEMAS: Record<string, [string, string?]> = {
  manifest: ['manifest'],
  'reconciliation-query-batch': ['reconciliation-query-batch'],
  'reconciliation-result-batch': ['reconciliation-result-batch'],
  'suggest-entities-response': ['suggest-entities-response'],
  'suggest-properties-response': ['suggest-properties-response'],
  'suggest-types-response': ['suggest-types-response'],
  'data-extension-query': ['data-extension-query'],
  'data-extension-response': ['data-extension-response'],
  'data-extension-property-proposal': ['data-extension-property-proposal'],
  'data-extension-metadata': ['manifest', '/properties/extend'],
  'preview-metadata': ['manifest', '/properties/preview'],
  'suggest-metadata': ['manifest', '/properties/suggest/definitions/service_definition'],
};

describe('the validator', () => {
  it('agrees with the verdict of every example of the spec that a schema covers', () => {
    const disagreements: string[] = [];
    let judged = 0;
    for (const [folder, [schema, pointer]] of Object.entries(EXAMPLE_SCHEMAS)) {
      for (const verdict of ['valid', 'invalid'] as const) {
        const dir = path.join(EXAMPLES, folder, verdict);
        if (!existsSync(dir)) continue;
        for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
          const data = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as unknown;
          const found = problems(schema, data, pointer);
          judged++;
          if ((found.length === 0) !== (verdict === 'valid'))
            disagreements.push(`${folder}/${verdict}/${file}: ${found.join('; ') || 'valid'}`);
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(judged).toBeGreaterThanOrEqual(40);
  });
});

// --- a daemon's answers -------------------------------------------------------------------------

const { cli, api, t } = useDaemonWithTokens();
const entity: Record<string, string> = {};
const KINDS = ['actors', 'places', 'keywords'] as const;
type Kind = (typeof KINDS)[number];

const ODD_PLACEHOLDER = 'Odd placeholder';
const ODD_NAME = "Odd <i>&amp;</i> 'name' \u0085 \u00a0 😀";

beforeAll(async () => {
  await loadCatalog(cli(), 'schemas.json', {
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
      { name: ODD_PLACEHOLDER, type: 'family' },
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
  // A C1 control (U+0085) is refused at every door now; text stored before that rule may still
  // hold one, and pages must escape it: written straight into the database.
  await withSandboxDb(cli(), (db) =>
    db('actors').where('name', ODD_PLACEHOLDER).update({ name: ODD_NAME, name_lower: ODD_NAME.toLowerCase() }),
  );
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

const post = (kind: Kind, field: 'queries' | 'extend', value: unknown, as: 'form' | 'json' = 'form') =>
  json(`/api/${kind}/reconcile`, {
    method: 'POST',
    headers: { 'Content-Type': as === 'form' ? 'application/x-www-form-urlencoded' : 'application/json' },
    body:
      as === 'form'
        ? new URLSearchParams({ [field]: JSON.stringify(value) }).toString()
        : JSON.stringify({ [field]: value }),
  });

describe('answers of a running daemon against the 0.2 schemas', () => {
  it('manifests, with and without the authentication scheme, also inside JSONP', async () => {
    for (const combo of [
      { public_access: false, public_api: false },
      { public_access: true, public_api: false },
    ]) {
      await applySettings(cli(), combo);
      for (const kind of KINDS) {
        const m = await json(`/api/${kind}/reconcile`);
        expect(problems('manifest', m), `${kind} ${JSON.stringify(combo)}`).toEqual([]);
        expect('authentication' in (m as object)).toBe(!combo.public_access);
        const jsonp = await api.get(`/api/${kind}/reconcile?callback=cb`, t.user);
        const inner = JSON.parse(/^\/\*\*\/cb\((.*)\);$/s.exec(jsonp.text)?.[1] ?? 'null') as unknown;
        expect(inner).toEqual(m);
      }
    }
    await applySettings(cli(), { public_access: false, public_api: false });
  });

  it('result batches: names, typos, namesakes, alternative names, types, properties, empty and bad queries', async () => {
    const batches: Record<Kind, Record<string, unknown>> = {
      actors: {
        exact: { query: 'Schiller, Friedrich' },
        typo: { query: 'Schiler', limit: 3 },
        alternative: { query: 'Friedrich von Schiller', type: 'person', type_strict: 'should' },
        types: { query: 'Schiller', type: ['person', 'family'] },
        byGnd: { properties: [{ pid: 'gnd', v: 'https://d-nb.info/gnd/118607626' }] },
        withProperties: {
          query: 'Schiller',
          properties: [
            { pid: 'date_start', v: ['1759-11-10', { id: '1759-11-10', name: 'x' }] },
            { pid: 'unknown', v: true },
          ],
        },
        odd: { query: 'Odd <i>' },
        none: { query: 'zzzzzz' },
      },
      places: {
        accent: { query: 'Zurich' },
        byGeonames: { properties: [{ pid: 'geonames', v: 2657896 }] },
        byCity: {
          properties: [
            { pid: 'city', v: 'zürich' },
            { pid: 'country_code', v: 'ch' },
          ],
        },
      },
      keywords: { exact: { query: 'letters' }, substring: { query: 'R&D' } },
    };
    for (const kind of KINDS) {
      const queries = batches[kind];
      // The batches sent are themselves valid 0.2 query batches.
      expect(problems('reconciliation-query-batch', queries), kind).toEqual([]);
      for (const answer of [
        await json(`/api/${kind}/reconcile?queries=${encodeURIComponent(JSON.stringify(queries))}`),
        await post(kind, 'queries', queries),
        await post(kind, 'queries', queries, 'json'),
      ]) {
        expect(problems('reconciliation-result-batch', answer), kind).toEqual([]);
        expect(Object.keys(answer as object).sort()).toEqual(Object.keys(queries).sort());
      }
    }
    // Queries the schema calls invalid are answered (with an error each) in a valid result batch.
    const bad = {
      long: { query: 'x'.repeat(1001) },
      control: { query: 'a\u0001' },
      nothing: { limit: 1 },
      wrong: 'x',
      empty: {},
      good: { query: 'Zürich' },
    };
    expect(problems('reconciliation-query-batch', bad)).not.toEqual([]);
    const answer = await post('places', 'queries', bad);
    expect(problems('reconciliation-result-batch', answer)).toEqual([]);
    expect(problems('reconciliation-result-batch', await post('actors', 'queries', {}))).toEqual([]);
  });

  it('suggest answers for entities, properties and types', async () => {
    for (const kind of KINDS) {
      for (const prefix of ['', 's', 'Sch', 'zür', 'r&d', entity[kind] as string, '<i>', 'zzzz']) {
        const q = `prefix=${encodeURIComponent(prefix)}`;
        expect(
          problems('suggest-entities-response', await json(`/api/${kind}/reconcile/suggest/entity?${q}`)),
          `${kind} ${prefix}`,
        ).toEqual([]);
        expect(
          problems('suggest-properties-response', await json(`/api/${kind}/reconcile/suggest/property?${q}`)),
          `${kind} ${prefix}`,
        ).toEqual([]);
        expect(
          problems('suggest-types-response', await json(`/api/${kind}/reconcile/suggest/type?${q}`)),
          `${kind} ${prefix}`,
        ).toEqual([]);
      }
      const paged = await json(`/api/${kind}/reconcile/suggest/entity?prefix=s&cursor=1&limit=1`);
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
          const answer = (await json(`/api/${kind}/reconcile/properties?type=${type}${limit}`)) as {
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
      for (const answer of [
        await json(`/api/${kind}/reconcile?extend=${encodeURIComponent(JSON.stringify(query))}`),
        await post(kind, 'extend', query),
        await post(kind, 'extend', query, 'json'),
      ]) {
        expect(problems('data-extension-response', answer), kind).toEqual([]);
        const a = answer as { meta: { id: string }[]; rows: Record<string, Record<string, unknown[]>> };
        expect(a.meta.map((m) => m.id)).toEqual(query.properties.map((p) => p.id));
        expect(Object.keys(a.rows)).toEqual(query.ids);
      }
      const all = await post(kind, 'extend', { ids: [], properties: [] });
      expect(problems('data-extension-response', all)).toEqual([]);
    }
  });
});

describe('the preview page', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'preview-'));
    // Any element, any attribute, any text: jing then checks that the page is well-formed XML.
    await writeFile(
      path.join(dir, 'any.rng'),
      `<grammar xmlns="http://relaxng.org/ns/structure/1.0"><start><ref name="any"/></start>
        <define name="any"><element><anyName/><zeroOrMore><choice><attribute><anyName/></attribute><text/><ref name="any"/></choice></zeroOrMore></element></define>
      </grammar>`,
    );
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(JING.skip !== null)(
    `is well-formed (checked with jing) and escapes every name${JING.skip ? ` — skipped: ${JING.skip}` : ''}`,
    async () => {
      const pages: [string, string, string][] = [];
      for (const kind of KINDS) {
        const list = dataOf<{ id: number; name: string }[]>(await api.get(`/api/${kind}?perPage=100`, t.user));
        for (const { id, name } of list) {
          const r = await api.get(`/api/${kind}/reconcile/preview/${id}`, t.user);
          expect(r.status).toBe(200);
          expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
          pages.push([`${kind}-${id}.xhtml`, r.text, name]);
        }
      }
      expect(pages.length).toBe(7);
      for (const [file, text, name] of pages) {
        await writeFile(path.join(dir, file), text);
        const escaped = name
          .replace(/&/g, '&amp;')
          .replace(/</g, '&lt;')
          .replace(/>/g, '&gt;')
          .replace(/"/g, '&quot;')
          .replace(/'/g, '&apos;')
          .replace(/\u0085/g, '&#x85;');
        expect(text, file).toContain(`<h1>${escaped}</h1>`);
        expect(text, file).not.toMatch(/<(script|i|playwright|at|keywords)\b/i);
      }
      const jing = (files: string[]) => {
        const run = spawnSync(
          pathOf(JING, 'jing'),
          [path.join(dir, 'any.rng'), ...files.map((f) => path.join(dir, f))],
          { encoding: 'utf8', timeout: 60_000 },
        );
        expect(run.error).toBeUndefined();
        // The Debian wrapper warns about optional jars it does not find; that is not about the pages.
        const output = `${run.stdout}${run.stderr}`.split('\n').filter((l) => l !== '' && !l.startsWith('[warning]'));
        return { status: run.status, output };
      };
      // The check can fail: an unescaped name is not well-formed.
      await writeFile(path.join(dir, 'broken.xhtml'), '<html><h1>R&D <keywords></h1></html>');
      expect(jing(['broken.xhtml']).status).not.toBe(0);
      expect(jing(pages.map(([f]) => f))).toEqual({ status: 0, output: [] });
    },
  );
});
