// The served description as a generator of requests (json-schema-faker, fixed seeds): every
// operation's query and body (JSON, urlencoded form with bracketed names, a SIP's text fields),
// sent to a listening daemon with an editor's token, is never refused for its shape (400, 413,
// 415 or 422); 404 and 409 say only that the record named or the state does not allow it. And
// the converse: a JSON, form or multipart body or a query made invalid by the description (a
// required field or a SIP's file dropped, an unknown field added, a pattern, maxLength, enum or
// bound broken; JSON text that is no JSON or of another type, or whose entries are broken so) is
// refused with 4xx, changing nothing; a 0.2 batch answers a broken query on its own, by its `error`. A sample json-schema-faker gets wrong itself (it skips `not`, and fails on a `false`
// schema) is judged by the description first and replaced by the next seed's.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { generateSync } from 'json-schema-faker';
import { beforeAll, describe, expect, it } from 'vitest';
import { dataOf, storedZip } from '../helpers/api.js';
import { noSleepClock } from '../helpers/daemon.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
// POST /api/tokens/revoke answers no sooner than half a second (its six generated reports took
// four of this file's six seconds): that wait is not slept here.
const { api, t } = useDaemonWithTokens({ clock: noSleepClock() });

type Schema = Record<string, unknown>;
interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** Samples per operation and kind of input. */
const SAMPLES = 6;
/** Arrays of at most this many items: bodies well within the byte limits (413), requests fast. */
const MAX_ITEMS = 4;
/** Seeds tried for one sample before the generator is judged unable. */
const ATTEMPTS = 20;
/** Refusals of a request's shape; any other status is an answer to a well-formed request. */
const SHAPE_REFUSED = [400, 413, 415, 422];
const FORM = 'application/x-www-form-urlencoded';

/** Refusals of a valid-looking request the description cannot foresee, each with its reason; unused ones fail. */
const KNOWN: { refusal: RegExp; why: string }[] = [
  {
    refusal: /^(put|post) \/api\/(actors|places)\/\{id\} \S+ → 422 date_end$/,
    why: 'date_end before date_start: a rule between two fields, said in words (JSON Schema compares no two values)',
  },
];

let doc: Doc;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
// RFC 3987 IRIs: what `format: iri` names (ajv-formats knows only its ASCII subset).
ajv.addFormat('iri', { validate: (s: string) => URL.canParse(s) && /^https?:\/\//.test(s) });
const validators = new Map<Schema, ValidateFunction>();
const valid = (schema: Schema, value: unknown) => {
  let v = validators.get(schema);
  if (!v) validators.set(schema, (v = ajv.compile(schema)));
  return v(value);
};

/** Whether the description accepts `value`, JSON text by its `contentSchema` too (ajv reads it as a note only). */
function described(schema: Schema, value: Record<string, unknown>): boolean {
  if (!valid(schema, value)) return false;
  return Object.entries((schema.properties ?? {}) as Record<string, Schema>).every(([k, s]) => {
    if (!s.contentSchema || typeof value[k] !== 'string') return true;
    try {
      return valid(s.contentSchema as Schema, JSON.parse(value[k]) as unknown);
    } catch {
      return false;
    }
  });
}

/** A schema with its references replaced by what they name (the description has no cycles). */
function resolved(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(resolved);
  if (!node || typeof node !== 'object') return node;
  const ref = (node as Schema).$ref;
  if (typeof ref === 'string') return resolved(doc.components.schemas[ref.split('/').pop() as string]);
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolved(v)]));
}

/** JSON text described by `contentSchema`: generated as its value (written out by `encoded`). */
function generable(schema: Schema): Schema {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, (s.contentSchema as Schema) ?? s])),
  };
}
const encoded = (schema: Schema, value: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      const s = ((schema.properties ?? {}) as Record<string, Schema>)[k];
      return [k, s?.contentSchema ? JSON.stringify(v) : v];
    }),
  );

/** Up to SAMPLES values the description accepts, from fixed seeds; how many seeds it took. */
function samples(schema: Schema, seed: number): { values: Record<string, unknown>[]; tried: number } {
  const values: Record<string, unknown>[] = [];
  const source = generable(schema);
  let tried = 0;
  for (let s = seed; values.length < SAMPLES && tried < SAMPLES * ATTEMPTS; s++, tried++) {
    let value: Record<string, unknown>;
    try {
      value = encoded(schema, generateSync(source, { seed: s, maxItems: MAX_ITEMS }) as Record<string, unknown>);
    } catch {
      continue;
    }
    if (valid(schema, value)) values.push(value);
  }
  return { values, tried };
}

/**
 * Parameters whose descriptions say they exclude each other (OpenAPI relates no two parameters):
 * a generated query keeps the first.
 */
const EXCLUSIVE: [string, string][] = [
  ['queries', 'extend'],
  ['cursor', 'page'],
];
/** Parameters read only beside another, as their words say: a broken one is sent beside it. */
const READ_WITH: Record<string, Record<string, string>> = { provider: { format: 'beacon' } };
/** Values only the daemon issues: a list's cursor is `start` or a `next_cursor` it answered. */
const ISSUED: Record<string, string> = { cursor: 'start' };
const exclusive = (schema: Schema, query: Record<string, unknown>) => {
  const out = { ...query };
  for (const [a, b] of EXCLUSIVE) if (a in out) delete out[b];
  const properties = schema.properties as Record<string, Schema>;
  for (const [k, v] of Object.entries(ISSUED)) if (k in out && properties[k]?.type === 'string') out[k] = v;
  return out;
};

/** The query's parameters as one object schema. */
function querySchema(op: Operation): Schema | null {
  const params = (op.parameters ?? []).filter((p) => p.in === 'query');
  if (params.length === 0) return null;
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, resolved(p.schema)])),
    required: params.filter((p) => p.required).map((p) => p.name),
    // Unknown query parameters are ignored, as the description says.
  };
}

/** A form's fields as the form parser reads them: `label[de]=…`, `variants[]=…`. */
function formText(value: Record<string, unknown>): string {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(value)) {
    if (Array.isArray(v)) for (const item of v) out.append(`${k}[]`, String(item));
    else if (v && typeof v === 'object')
      for (const [sub, x] of Object.entries(v)) out.append(`${k}[${sub}]`, String(x));
    else out.append(k, String(v));
  }
  return out.toString();
}

const ids = { actors: 0, places: 0 };
/** A path with its `{id}`: a place's under /api/places, an actor's elsewhere (404s are answers too). */
const concrete = (path: string) =>
  path.replace('{id}', String(path.startsWith('/api/places') ? ids.places : ids.actors));

async function send(method: string, path: string, query: Record<string, unknown>, body?: [string, unknown]) {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const url = `${concrete(path)}${search ? `?${search}` : ''}`;
  const headers: Record<string, string> = { Authorization: `Bearer ${t.editor}` };
  let payload: BodyInit | undefined;
  if (body?.[0] === 'application/json') {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body[1]);
  } else if (body?.[0] === FORM) {
    headers['Content-Type'] = FORM;
    payload = formText(body[1] as Record<string, unknown>);
  } else if (body) {
    const form = new FormData();
    const zip = new Blob([storedZip({ 'manifest.txt': 'generated\n' })], { type: 'application/zip' });
    if ('file' in (body[1] as Record<string, unknown>)) form.set('file', zip, 'sip.zip');
    for (const [k, v] of Object.entries(body[1] as Record<string, unknown>)) if (k !== 'file') form.set(k, String(v));
    payload = form;
  }
  return api.request(url, { method: method.toUpperCase(), headers, body: payload }).catch((e: unknown) => {
    throw new Error(`${method} ${url.slice(0, 200)} (${url.length}): ${String(e)}`);
  });
}

function operations(): [string, string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => ['get', 'post', 'put'].includes(m))
      .map(([m, op]): [string, string, Operation] => [path, m, op]),
  );
}

beforeAll(async () => {
  doc = (await api.get('/api/openapi.json')).body as Doc;
  ids.actors = dataOf<{ id: number }>(await api.post('/api/actors', { name: 'Faker' }, t.editor)).id;
  ids.places = dataOf<{ id: number }>(await api.post('/api/places', { name: 'Fakertown' }, t.editor)).id;
});

/** An operation's inputs to generate: each body media type's schema, and its query's. */
function inputsOf(op: Operation): [string, Schema][] {
  const query = querySchema(op);
  const inputs: [string, Schema][] = Object.entries(op.requestBody?.content ?? {}).map(([type, c]) => [
    type,
    resolved(c.schema) as Schema,
  ]);
  if (query) inputs.push(['query', query]);
  return inputs;
}

describe('requests generated from the description', () => {
  it('are never refused for their shape', async () => {
    const refusedShapes: string[] = [];
    const unable: string[] = [];
    const counts = { sent: 0, answered: {} as Record<number, number> };
    let seed = 1;
    for (const [path, method, op] of operations()) {
      const inputs = inputsOf(op);
      for (const [kind, schema] of inputs) {
        const { values } = samples(schema, (seed += 1000));
        if (values.length < SAMPLES) unable.push(`${method} ${path} ${kind}: ${values.length}`);
        for (const value of values) {
          const r = await (kind === 'query'
            ? send(method, path, exclusive(schema, value))
            : send(method, path, {}, [kind, value]));
          counts.sent++;
          counts.answered[r.status] = (counts.answered[r.status] ?? 0) + 1;
          if (SHAPE_REFUSED.includes(r.status)) {
            const fields = Object.keys((r.body as { fields?: object } | undefined)?.fields ?? {});
            const named = [...new Set(fields.map((f) => f.replace(/\.\d+/g, '.*')))].sort().join(' ');
            refusedShapes.push(`${method} ${path} ${kind} → ${r.status} ${named || r.text.slice(0, 120)}`);
          }
        }
      }
    }
    console.info('generated requests', counts);
    const unexplained = [...new Set(refusedShapes)].filter((r) => !KNOWN.some((k) => k.refusal.test(r)));
    expect(unexplained).toEqual([]);
    const unused = KNOWN.filter((k) => !refusedShapes.some((r) => k.refusal.test(r))).map((k) => k.why);
    expect(unused).toEqual([]);
    expect(unable).toEqual([]);
    expect(counts.sent).toBeGreaterThanOrEqual(300);
  });

  it('made invalid by the description, are refused with 4xx and change nothing', async () => {
    const before = await state();
    const accepted: string[] = [];
    const counts = { sent: 0, operations: 0, inputs: 0, byKind: {} as Record<string, number> };
    let seed = 900_000;
    for (const [path, method, op] of operations()) {
      const inputs = inputsOf(op);
      let covered = false;
      for (const [kind, schema] of inputs) {
        const [sample] = samples(schema, (seed += 1000)).values;
        if (!sample) continue;
        const given = kind === 'query' ? exclusive(schema, sample) : sample;
        const variants = [...invalidVariants(schema, given), ...nestedVariants(schema, given)].filter(
          (v) => !described(schema, v.value),
        );
        if (variants.length > 0) [covered, counts.inputs] = [true, counts.inputs + 1];
        for (const { what, value, entry } of variants) {
          // A JSONP answer is read as its JSON: a broken entry's `error` is looked for in it.
          const { callback: _, ...sent } = value;
          const r = await (kind === 'query'
            ? send(method, path, { ...(entry ? sent : value), ...READ_WITH[what.replace(/ broken$/, '')] })
            : send(method, path, {}, [kind, value]));
          counts.sent++;
          counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
          const refused = r.status >= 400 && r.status < 500;
          const entryRefused =
            entry !== undefined &&
            r.status === 200 &&
            typeof (r.body as Record<string, { error?: unknown }> | undefined)?.[entry]?.error === 'string';
          if (!refused && !entryRefused) accepted.push(`${method} ${path} ${kind} ${what} → ${r.status}`);
        }
      }
      if (covered) counts.operations++;
    }
    console.info('invalid requests', counts);
    expect(accepted).toEqual([]);
    // Every operation with an input the description can call invalid (54 of 68; the rest take none).
    expect(counts.sent).toBeGreaterThanOrEqual(400);
    expect(counts.operations).toBeGreaterThanOrEqual(54);
    for (const kind of ['application/json', FORM, 'multipart/form-data', 'query'])
      expect(counts.byKind[kind], kind).toBeGreaterThan(0);
    expect(await state()).toEqual(before);
  });
});

/** The records of each register, and the objects' ids: what a refused request must leave as it was. */
async function state(): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const register of ['actors', 'places', 'keywords', 'objects']) {
    const r = await api.get(`/api/${register}?perPage=100&sortField=id`, t.editor);
    const rows = (r.body as { data: { id: number }[] }).data;
    out.push(register === 'objects' ? rows.map((o) => o.id) : rows);
  }
  return out;
}

/** A value that breaks a string schema's pattern, length or words, or an integer's bounds (of an alternative each); null: none found. */
function breaking(s: Schema): unknown {
  // Of alternatives (a text or null, …), the first value that breaks each of them.
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alternatives) return alternatives.map(breaking).find((x) => x !== null && !valid(s, x)) ?? null;
  if (Array.isArray(s.enum)) return 'not-one-of-the-words';
  if (typeof s.maxLength === 'number') return 'a'.repeat(s.maxLength + 1);
  if (typeof s.pattern === 'string') return ['\u0000', '', ' ', 'a\nb', '!!'].find((x) => !valid(s, x)) ?? null;
  if (s.type === 'integer' && typeof s.maximum === 'number') return s.maximum + 1;
  if (s.type === 'integer' && typeof s.minimum === 'number') return s.minimum - 1;
  return null;
}

/** An input made invalid (`what` says how); `entry`: the key of the 0.2 batch query broken, answered on its own. */
interface Variant {
  what: string;
  value: Record<string, unknown>;
  entry?: string;
}

/**
 * The description-invalid variants of a valid input: each required field dropped (of the whole,
 * or of an alternative), an unknown field added, each field's value broken. Read-only fields are
 * left alone: a body sends them back as read, and they are ignored, as their words say.
 */
function invalidVariants(schema: Schema, value: Record<string, unknown>): Variant[] {
  const out: Variant[] = [];
  const alternatives = (schema.oneOf ?? []) as Schema[];
  const required = [schema, ...alternatives].flatMap((s) => (s.required ?? []) as string[]);
  for (const key of new Set(required))
    if (key in value) {
      const { [key]: _, ...rest } = value;
      out.push({ what: `without ${key}`, value: rest });
    }
  // In a batch (`additionalProperties`: its queries), an unknown field is a query of its own.
  const entry = isObject(schema.additionalProperties) ? 'x_unknown_field' : undefined;
  out.push({ what: 'with an unknown field', value: { ...value, x_unknown_field: 1 }, ...(entry ? { entry } : {}) });
  for (const [key, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    if (typeof s.description === 'string' && s.description.startsWith('read-only')) continue;
    const bad = breaking(s);
    if (bad !== null) out.push({ what: `${key} broken`, value: { ...value, [key]: bad } });
  }
  return out;
}

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/**
 * The variants inside an input: JSON text (`contentSchema`) that is no JSON or JSON of another
 * type, and each object within (a field's object, an array's first item, a batch's first entry)
 * made invalid as a whole input is, in turn within it. Entries of a batch (`additionalProperties`)
 * carry their key: a 0.2 service answers such a query on its own.
 */
function nestedVariants(schema: Schema, value: Record<string, unknown>, entry?: string): Variant[] {
  const out: Variant[] = [];
  const inner = (s: Schema, v: Record<string, unknown>, at: string, put: (x: unknown) => unknown, key = entry) => {
    for (const x of [...invalidVariants(s, v), ...nestedVariants(s, v, key)])
      out.push({ what: `${at}: ${x.what}`, value: put(x.value) as Record<string, unknown>, entry: x.entry ?? key });
  };
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const [key, v] of Object.entries(value)) {
    const s = properties[key];
    const set = (x: unknown) => ({ ...value, [key]: x });
    if (s?.contentSchema && typeof v === 'string') {
      out.push({ what: `${key} not JSON`, value: set(v.slice(0, -1) || '{'), entry });
      out.push({ what: `${key} JSON of another type`, value: set(`[${v}]`), entry });
      const parsed = JSON.parse(v) as unknown;
      if (isObject(parsed)) inner(s.contentSchema as Schema, parsed, key, (x) => set(JSON.stringify(x)));
    } else if (s && isObject(v)) {
      inner(s, v, key, set);
    } else if (s && Array.isArray(v) && isObject(v[0]) && isObject(s.items)) {
      inner(s.items, v[0], `${key}.0`, (x) => set([x, ...(v as unknown[]).slice(1)]));
    } else if (!s && isObject(schema.additionalProperties) && isObject(v) && key === Object.keys(value)[0]) {
      inner(schema.additionalProperties, v, key, set, key);
    }
  }
  // A batch generated empty is given a first query of its own to break.
  const entries = Object.keys(value).filter((k) => !(k in properties));
  if (isObject(schema.additionalProperties) && entries.length === 0) {
    const [q0] = samples(schema.additionalProperties, 700_000).values;
    if (q0) inner(schema.additionalProperties, q0, 'q0', (x) => ({ ...value, q0: x }), 'q0');
  }
  return out;
}
