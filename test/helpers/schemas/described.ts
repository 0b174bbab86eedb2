// Every answer the HTTP tests receive through client() (api.ts), judged by the description the
// daemon serves (src/http/openapi/): its status must be one the operation lists, its media type
// one the status describes, its JSON body (and a JSONP answer's JSON) valid against the schema,
// its required headers present and well-formed. So an undocumented field, status or refusal fails the test that met it. The
// document is built and its validators compiled once per worker, each on first use.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { servedDocument } from '../../../src/http/openapi/document.js';
import { ROUTES } from '../../../src/http/routes/index.js';
import type { Reply } from '../api.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Node = Record<string, unknown>;
interface Loaded {
  doc: { paths: Record<string, Record<string, Node>>; components: Record<string, Record<string, Node>> };
  ajv: Ajv2020;
  /** Path templates as patterns, the most specific (fewest parameters) first. */
  templates: { template: string; re: RegExp; params: number }[];
  validators: Map<string, ValidateFunction>;
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded) return loaded;
  const doc = JSON.parse(servedDocument(ROUTES).json) as Loaded['doc'];
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: false }));
  ajv.addSchema(doc, 'openapi.json');
  const templates = Object.keys(doc.paths)
    .map((template) => ({
      template,
      re: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}/?$`),
      params: (template.match(/\{/g) ?? []).length,
    }))
    .sort((a, b) => a.params - b.params);
  return (loaded = { doc, ajv, templates, validators: new Map() });
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validator(l: Loaded, at: string): ValidateFunction {
  let v = l.validators.get(at);
  if (!v) {
    v = l.ajv.getSchema(`openapi.json#/${at}`);
    if (!v) throw new Error(`no schema at ${at}`);
    l.validators.set(at, v);
  }
  return v;
}

/** A `$ref` to components/responses followed; its pointer for the schemas below it. */
function resolved(l: Loaded, answer: Node, at: string): { node: Node; at: string } {
  const ref = answer.$ref;
  if (typeof ref !== 'string') return { node: answer, at };
  const name = ref.replace('#/components/responses/', '');
  return { node: l.doc.components.responses?.[name] as Node, at: pointer('components', 'responses', name) };
}

function bodyProblems(l: Loaded, r: Reply, answer: Node, at: string, where: string): string[] {
  const content = answer.content as Record<string, Node> | undefined;
  if (!content || r.method === 'HEAD' || r.status === 304 || r.status === 204) return [];
  const type = (r.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  if (!(type in content))
    return [`${where}: ${type || 'no'} media type; described: ${Object.keys(content).join(', ')}`];
  let json = r.body;
  if (type === 'application/javascript') {
    // JSONP (src/http/cors.ts): the wrapper as the description's pattern says, around the JSON
    // answer, which is judged by the operation's application/json schema.
    const text = validator(l, `${at}/${pointer('content', type, 'schema')}`);
    if (!text(r.text)) return [`${where}: JSONP body is not /**/callback(json);`];
    const inner = /^\/\*\*\/[\w$.]+\((.*)\);$/s.exec(r.text)?.[1] ?? '';
    try {
      json = JSON.parse(inner) as unknown;
    } catch {
      return [`${where}: JSONP argument is not JSON`];
    }
    if (!('application/json' in content)) return [`${where}: JSONP of an answer that is not JSON`];
  } else if (type !== 'application/json') return [];
  const v = validator(l, `${at}/${pointer('content', 'application/json', 'schema')}`);
  if (v(json)) return [];
  const say = (e: ErrorObject, as = '') =>
    `${where}: ${as}body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`;
  // One of several documents (a reconciliation endpoint's manifest, results or extension): what
  // keeps it from being each of them, rather than ajv's mix of all their errors.
  const schema = (content['application/json'] as { schema?: { oneOf?: Node[] } }).schema;
  const branches = (schema?.oneOf ?? []).flatMap((b) =>
    typeof b.$ref === 'string' ? [b.$ref.replace('#/components/schemas/', '')] : [],
  );
  if (branches.length === 0) return (v.errors ?? []).slice(0, 5).map((e) => say(e));
  return branches.flatMap((name) => {
    const b = validator(l, pointer('components', 'schemas', name));
    return b(json) ? [] : (b.errors ?? []).slice(0, 3).map((e) => say(e, `as ${name}: `));
  });
}

function headerProblems(l: Loaded, r: Reply, answer: Node, where: string): string[] {
  const problems: string[] = [];
  for (const [name, raw] of Object.entries((answer.headers ?? {}) as Record<string, Node>)) {
    const ref = typeof raw.$ref === 'string' ? raw.$ref.replace('#/components/headers/', '') : undefined;
    const header = ref ? (l.doc.components.headers?.[ref] as Node) : raw;
    const value = r.headers.get(name);
    if (value === null) {
      if (header.required === true) problems.push(`${where}: no ${name} header`);
      continue;
    }
    if (!ref) continue;
    const v = validator(l, pointer('components', 'headers', ref, 'schema'));
    if (!v(value)) problems.push(`${where}: ${name}: ${String(value)} is not ${JSON.stringify(header.schema)}`);
  }
  return problems;
}

/** The ways `r` leaves the description (empty when it is described). */
export function describedProblems(r: Reply): string[] {
  const l = load();
  const path = r.path.split('?')[0] ?? '';
  const where = `${r.method} ${path} → ${r.status}`;
  const found = l.templates.find((t) => t.re.test(path));
  const method = r.method === 'HEAD' ? 'get' : r.method.toLowerCase();
  const operation = found ? l.doc.paths[found.template]?.[method] : undefined;
  if (!found || !operation) {
    // No such operation: the pipeline's 404 (unknown path) or 405 (known path, other method).
    if (![404, 405].includes(r.status)) return [`${where}: no operation describes it`];
    const { node, at } = resolved(l, { $ref: '#/components/responses/NotFound' }, '');
    return bodyProblems(l, r, node, at, where);
  }
  const answers = operation.responses as Record<string, Node>;
  const own = answers[String(r.status)];
  if (!own) return [`${where}: status not described (described: ${Object.keys(answers).join(', ')})`];
  const base = pointer('paths', found.template, method, 'responses', String(r.status));
  const { node, at } = resolved(l, own, base);
  return [...bodyProblems(l, r, node, at, where), ...headerProblems(l, r, node, where)];
}
