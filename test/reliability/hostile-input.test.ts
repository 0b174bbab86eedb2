// docs/http-api.md against hostile input, through one real daemon: table-driven cases and a
// fast-check property, each sent with an editor token and without one. For every request:
// no 5xx, the answer completes (no hang: 5 s per request), every error body is a JSON object
// with a string `error`; afterwards the daemon is alive, serving, and logged no unhandled error.
//
// Exceptions that belong to Node's HTTP parser, not to the daemon (documented per case):
// - a method llhttp does not know (`FOOBAR`) never reaches the app; the daemon's clientError
//   handler answers 400 JSON;
// - `CONNECT` is routed by Node to the server's 'connect' event; with no listener Node closes
//   the connection without an answer. That counts as "completed" (closed, no hang).
// - a request whose body is cut short at the TCP level (Content-Length promises more, then FIN)
//   cannot be answered by anyone: Node aborts it and closes the connection.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createToken } from '../helpers/cli.js';
import { logEntries, useDaemon } from '../helpers/daemon.js';
import { QUERY_PARAMETERS } from '../helpers/catalog.js';
import { sampledPairs } from '../helpers/api.js';
import { rawExchange, rawRequest, type RawOutcome } from '../helpers/raw-http.js';
import { multipartBody, newBoundary, sipBody, zipOf } from '../helpers/upload.js';

const { cli, daemon } = useDaemon();
let editorToken = '';

const JSON_LIMIT = 1_048_576; // limits.jsonBytes, default
const REQUEST_TIMEOUT_MS = 5000;

// ---------------------------------------------------------------------------------------------
// Bookkeeping: every request is counted; a 5xx, a hang or a non-JSON error body is a problem.

const stats = { cases: 0, fiveXX: 0, closedWithoutAnswer: 0, statuses: new Map<number, number>() };
const fiveXXSeen: string[] = [];

interface Answer {
  status: number;
  headers: Headers | Record<string, string>;
  text: string;
}

function header(a: Answer, name: string): string | null {
  return a.headers instanceof Headers ? a.headers.get(name) : (a.headers[name.toLowerCase()] ?? null);
}

/** Checks one answer; returns the problems found (empty when fine). */
function judge(label: string, a: Answer, opts: { head?: boolean } = {}): string[] {
  stats.cases++;
  stats.statuses.set(a.status, (stats.statuses.get(a.status) ?? 0) + 1);
  const problems: string[] = [];
  if (a.status >= 500) {
    stats.fiveXX++;
    fiveXXSeen.push(`${label} → ${a.status} ${a.text.slice(0, 200)}`);
    problems.push(`${label}: ${a.status} ${a.text.slice(0, 200)}`);
  }
  if (a.status >= 400 && !opts.head) {
    let body: unknown;
    try {
      body = JSON.parse(a.text);
    } catch {
      problems.push(`${label}: ${a.status} body is not JSON: ${JSON.stringify(a.text.slice(0, 200))}`);
      return problems;
    }
    if (
      typeof body !== 'object' ||
      body === null ||
      Array.isArray(body) ||
      typeof (body as { error?: unknown }).error !== 'string'
    ) {
      problems.push(`${label}: ${a.status} body has no string "error": ${a.text.slice(0, 200)}`);
    }
    if (!/^application\/json/.test(header(a, 'content-type') ?? '')) {
      problems.push(`${label}: ${a.status} content-type ${header(a, 'content-type')}`);
    }
  }
  if (a.status === 401 && !header(a, 'www-authenticate')) problems.push(`${label}: 401 without WWW-Authenticate`);
  if (a.status === 405 && !header(a, 'allow')) problems.push(`${label}: 405 without Allow`);
  return problems;
}

const bearer = (): Record<string, string> => ({ Authorization: `Bearer ${editorToken}` });

interface FetchCase {
  label: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: RequestInit['body'];
  /** Expected statuses with the editor token (any < 500 when absent). */
  expectAuthed?: number[];
  /** Expected statuses without a token. */
  expectAnon?: number[];
}

/** Sends a case with and without the editor token; answers the problems. */
async function runFetch(c: FetchCase, results?: Map<string, Answer>): Promise<string[]> {
  const problems: string[] = [];
  for (const authed of [true, false]) {
    const label = `${c.method ?? 'GET'} ${c.path.slice(0, 120)}${c.path.length > 120 ? '…' : ''} [${c.label}${authed ? ', editor' : ', no token'}]`;
    let answer: Answer;
    try {
      const init: RequestInit & { duplex?: 'half' } = {
        method: c.method ?? 'GET',
        headers: { ...(c.headers ?? {}), ...(authed ? bearer() : {}) },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      };
      if (c.body !== undefined) init.body = c.body;
      if (c.body instanceof ReadableStream) init.duplex = 'half';
      const res = await daemon().fetch(c.path, init);
      answer = { status: res.status, headers: res.headers, text: await res.text() };
    } catch (err) {
      stats.cases++;
      problems.push(
        `${label}: no answer (${(err as Error).name}: ${(err as Error).message}; cause ${String((err as { cause?: unknown }).cause)})`,
      );
      continue;
    }
    results?.set(`${authed ? 'editor' : 'anon'}`, answer);
    problems.push(...judge(label, answer, { head: c.method === 'HEAD' }));
    const expected = authed ? c.expectAuthed : c.expectAnon;
    if (expected && !expected.includes(answer.status)) {
      problems.push(`${label}: expected ${expected.join('/')} but got ${answer.status} ${answer.text.slice(0, 200)}`);
    }
  }
  return problems;
}

async function runAll(cases: FetchCase[]): Promise<string[]> {
  const problems: string[] = [];
  for (const c of cases) problems.push(...(await runFetch(c)));
  return problems;
}

interface RawCase {
  label: string;
  payload: (authed: boolean) => Buffer | (string | Buffer)[];
  endAfterWrite?: boolean;
  head?: boolean;
  /** The connection may be closed without an answer (Node's own behaviour, see the header). */
  mayClose?: boolean;
  expectAuthed?: number[];
  expectAnon?: number[];
}

async function runRaw(
  c: RawCase,
  authedModes: boolean[] = [true, false],
): Promise<{ problems: string[]; outcomes: RawOutcome[] }> {
  const problems: string[] = [];
  const outcomes: RawOutcome[] = [];
  for (const authed of authedModes) {
    const label = `raw ${c.label}${authed ? ' [editor]' : ' [no token]'}`;
    let outcome: RawOutcome;
    try {
      outcome = await rawExchange(daemon().url, c.payload(authed), {
        timeoutMs: REQUEST_TIMEOUT_MS,
        endAfterWrite: c.endAfterWrite,
        head: c.head,
      });
    } catch (err) {
      stats.cases++;
      problems.push(`${label}: ${(err as Error).message}`);
      continue;
    }
    outcomes.push(outcome);
    if (outcome.kind === 'closed') {
      stats.cases++;
      stats.closedWithoutAnswer++;
      if (!c.mayClose)
        problems.push(
          `${label}: connection closed without an answer (${outcome.error ?? 'FIN'}, ${outcome.received.length} bytes)`,
        );
      continue;
    }
    const a = outcome.response;
    problems.push(...judge(label, a, { head: c.head }));
    const expected = authed ? c.expectAuthed : c.expectAnon;
    if (expected && !expected.includes(a.status))
      problems.push(`${label}: expected ${expected.join('/')} but got ${a.status} ${a.text.slice(0, 200)}`);
  }
  return { problems, outcomes };
}

/** POSTs a JSON body with the editor's token, bounded like every request here. */
const postAsEditor = (path: string, body: unknown): Promise<Response> =>
  daemon().fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...bearer() },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });

const authHeader = (authed: boolean): Record<string, string> => (authed ? bearer() : {});

const json = (value: unknown): Pick<FetchCase, 'headers' | 'body'> => ({
  headers: { 'Content-Type': 'application/json' },
  body: typeof value === 'string' ? value : JSON.stringify(value),
});

/** A case for a route that needs a token: `expectAuthed` with the editor's, always 401 without one. */
const guarded = (
  label: string,
  method: string,
  path: string,
  expectAuthed: number[] | undefined,
  body: Pick<FetchCase, 'headers' | 'body'> = {},
): FetchCase => ({ label, method, path, ...body, expectAuthed, expectAnon: [401] });

/** A case where any answer but a 5xx will do, with a token or without. */
const anyStatus = (label: string, method: string, path: string, body: Pick<FetchCase, 'headers' | 'body'>): FetchCase =>
  Object.assign({ label, method, path }, body);

/** A body sent with the given Content-Type. */
const typed = (type: string, body: RequestInit['body']): Pick<FetchCase, 'headers' | 'body'> => ({
  headers: { 'Content-Type': type },
  body,
});

beforeAll(async () => {
  await createAccounts(cli(), { hroot: 'superuser', hed: 'editor' });
  editorToken = (await createToken(cli(), 'hed', 'hostile input', 'hroot')).token;
});

afterAll(() => {
  const statuses = Object.fromEntries([...stats.statuses].sort(([a], [b]) => a - b));
  console.log(
    `[hostile-input] cases tried: ${stats.cases}; 5xx seen: ${stats.fiveXX}; closed without an answer (allowed cases): ${stats.closedWithoutAnswer}; statuses: ${JSON.stringify(statuses)}`,
  );
  if (fiveXXSeen.length > 0) console.log(`[hostile-input] 5xx answers:\n  ${fiveXXSeen.join('\n  ')}`);
});

// ---------------------------------------------------------------------------------------------

describe('path ids that are not positive integers', () => {
  const ids = [
    ...['0', '-1', '1.5', '1e3', '0x10', '01', '9999999999999999999999', '2147483648'],
    ...['%00', '..%2F', '..%2F..%2F..%2Fetc%2Fpasswd', '%20', '1%0A'],
    ...['é', '名前', '💩', '١٢' /* Arabic-Indic digits */].map((s) => encodeURIComponent(s)),
    ...['%E0%A4%A', '%ZZ', '%', 'abc', 'null', '__proto__'],
  ];

  it('answers 404 for every such id, each on two of the :id routes (never a 5xx)', async () => {
    const routes: ((id: string) => FetchCase)[] = [
      (id) => ({ label: `id ${id}`, path: `/api/actors/${id}`, expectAuthed: [404], expectAnon: [401] }),
      (id) => ({ label: `id ${id}`, path: `/api/places/${id}`, expectAuthed: [404], expectAnon: [401] }),
      (id) => guarded(`id ${id}`, 'PUT', `/api/actors/${id}`, [404], json({ name: 'x' })),
      (id) => guarded(`id ${id}`, 'POST', `/api/places/${id}`, [404], json({ name: 'x' })),
      (id) => guarded(`id ${id}`, 'POST', `/api/ingest/confirm/${id}`, [404]),
      (id) => guarded(`id ${id}`, 'POST', `/api/ingest/failed/${id}`, [404], json({ reason: 'x' })),
    ];
    // Every id on two of the routes and every route with a third of the ids (a fixed sample, not
    // the product: the router reads an :id the same way on every route).
    const cases = [0, 3].flatMap((shift) => sampledPairs(routes, ids, shift).map(([route, id]) => route(id)));
    expect(cases).toHaveLength(2 * ids.length);
    expect(await runAll(cases)).toEqual([]);
  });

  it('answers raw paths the URL parser would rewrite (dot segments, backslashes, absolute-form)', async () => {
    const targets = [
      '/api/actors/../actors/1',
      '/api/actors/./1',
      '/api/actors/%2e%2e/%2e%2e/etc/passwd',
      '/api/actors\\1',
      '/api//actors',
      '/api/actors/1/',
      '/api/actors/1?',
      '/api/actors/1#frag',
      'http://127.0.0.1/api/actors/1',
      '/api/actors/\u00e9',
    ];
    const problems: string[] = [];
    for (const target of targets) {
      const r = await runRaw({
        label: `GET ${target}`,
        payload: (authed) => rawRequest('GET', target, authHeader(authed)),
      });
      problems.push(...r.problems);
    }
    expect(problems).toEqual([]);
  });
});

describe('bodies: size, nesting, prototype keys, content types', () => {
  it('accepts a JSON body just under the 1 MiB limit and answers 413 just over it', async () => {
    const make = (total: number) => {
      const head = '{"name":"big","comment":"';
      const tail = '"}';
      return head + 'a'.repeat(total - head.length - tail.length) + tail;
    };
    const under = make(JSON_LIMIT - 16);
    const over = make(JSON_LIMIT + 16);
    expect(Buffer.byteLength(under)).toBeLessThan(JSON_LIMIT);
    const problems = await runAll([
      // Under the limit the body is read; the comment is too long for the field (422), not a 413.
      guarded('JSON just under the limit', 'POST', '/api/actors', [201, 422], json(under)),
    ]);
    // Over the limit. These go raw: a server that refuses a body early and closes the connection
    // races a client still writing it (fetch then fails with EPIPE instead of reading the 413).
    // So the client sends no more than the server must read to decide, and waits.
    // 1. Content-Length just over the limit, body not sent: the 413 comes from the header alone.
    for (const [label, type, path] of [
      ['JSON just over the limit', 'application/json', '/api/actors'],
      ['form just over the limit', 'application/x-www-form-urlencoded', '/api/ai-cataloging/usage'],
    ] as const) {
      const r = await runRaw({
        label: `${label} (Content-Length ${Buffer.byteLength(over)}, body withheld)`,
        payload: (authed) =>
          rawRequest('POST', path, {
            ...authHeader(authed),
            'Content-Type': type,
            'Content-Length': String(Buffer.byteLength(over)),
          }),
        expectAuthed: [413],
        expectAnon: [401],
      });
      problems.push(...r.problems);
    }
    // 2. Chunked, no Content-Length: the limit is found while reading; the last chunk sent is the
    // one that crosses it, and the client then waits.
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const chunks: (string | Buffer)[] = ['12\r\n{"name":"c","x":"a\r\n'];
    for (let sent = 18; sent <= JSON_LIMIT; sent += chunk.length)
      chunks.push(`${chunk.length.toString(16)}\r\n`, chunk, '\r\n');
    const r = await runRaw({
      label: 'chunked JSON crossing the limit',
      payload: (authed) => [
        rawRequest('POST', '/api/actors', {
          ...authHeader(authed),
          'Content-Type': 'application/json',
          'Transfer-Encoding': 'chunked',
        }),
        ...chunks,
      ],
      expectAuthed: [413],
      expectAnon: [401],
    });
    problems.push(...r.problems);
    // 3. The same through fetch, whole body sent: whatever happens first (the 413 or EPIPE), the
    // answer is bounded and never a 5xx.
    for (const authed of [true, false]) {
      try {
        const res = await daemon().fetch('/api/actors', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...authHeader(authed) },
          body: over,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const a = { status: res.status, headers: res.headers, text: await res.text() };
        problems.push(...judge(`fetch, JSON just over the limit${authed ? ' [editor]' : ' [no token]'}`, a));
        if (a.status !== (authed ? 413 : 401))
          problems.push(`fetch, JSON just over the limit: expected ${authed ? 413 : 401}, got ${a.status}`);
      } catch (err) {
        stats.cases++;
        stats.closedWithoutAnswer++;
        const code = String((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name);
        if (!['EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(code))
          problems.push(`fetch, JSON just over the limit: ${code} ${(err as Error).message}`);
      }
    }

    // Far over the limit (8 MiB announced): the daemon answers 413 from the Content-Length
    // alone and closes the connection without reading the body, so the client may see the
    // reset (EPIPE/ECONNRESET) before it reads the 413. Either is a complete, bounded answer.
    const huge = await runRaw({
      label: 'JSON of 8 MiB',
      payload: (authed) =>
        rawRequest(
          'POST',
          '/api/actors',
          { ...authHeader(authed), 'Content-Type': 'application/json' },
          make(8 * JSON_LIMIT),
        ),
      mayClose: true,
      expectAuthed: [413],
      expectAnon: [401],
    });
    problems.push(...huge.problems);
    for (const o of huge.outcomes)
      if (o.kind === 'closed' && !['ECONNRESET', 'EPIPE', null].includes(o.error))
        problems.push(`JSON of 8 MiB: closed with ${o.error}`);
    expect(problems).toEqual([]);
  });

  it('survives deeply nested JSON (100,000 levels)', async () => {
    const depth = 100_000;
    const problems = await runAll([
      guarded('closed arrays', 'POST', '/api/actors', [400, 422], json('['.repeat(depth) + ']'.repeat(depth))),
      guarded('unclosed arrays', 'POST', '/api/actors', [400], json('['.repeat(depth))),
      guarded(
        'nested objects',
        'POST',
        '/api/actors',
        [400, 422],
        json('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
      ),
      guarded(
        'nested label',
        'POST',
        '/api/actors',
        [400, 422],
        json(`{"name":"deep","label":${'['.repeat(depth)}${']'.repeat(depth)}}`),
      ),
      guarded(
        'nested alternative_names',
        'POST',
        '/api/places',
        [400, 422],
        json(`{"name":"deep","alternative_names":${'['.repeat(depth)}${']'.repeat(depth)}}`),
      ),
      guarded(
        'nested reconcile queries',
        'POST',
        '/api/actors/reconcile',
        [400, 422],
        json(`{"queries":${'{"q":'.repeat(depth)}1${'}'.repeat(depth)}}`),
      ),
      guarded(
        'nested usage',
        'POST',
        '/api/ai-cataloging/usage',
        [400, 422],
        json(`{"provider":${'['.repeat(depth)}${']'.repeat(depth)}}`),
      ),
      guarded(
        'nested form keys',
        'POST',
        '/api/actors',
        [400, 422],
        typed('application/x-www-form-urlencoded', `name${'[a]'.repeat(10_000)}=1`),
      ),
    ]);
    expect(problems).toEqual([]);
  });

  it('ignores prototype-pollution keys, and later responses are unaffected', async () => {
    const form = (body: string): Pick<FetchCase, 'headers' | 'body'> => ({
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
    const boundary = newBoundary();
    const cases: FetchCase[] = [
      anyStatus('__proto__ only', 'POST', '/api/actors', json('{"__proto__": {"x": 1}}')),
      anyStatus(
        'name + __proto__',
        'POST',
        '/api/actors',
        json('{"name": "pp-json-1", "__proto__": {"polluted": "yes", "x": 1}}'),
      ),
      anyStatus('constructor.prototype', 'POST', '/api/actors', json('{"constructor": {"prototype": {}}}')),
      anyStatus(
        'name + constructor.prototype',
        'POST',
        '/api/actors',
        json('{"name": "pp-json-2", "constructor": {"prototype": {"polluted": "yes"}}}'),
      ),
      anyStatus(
        'label.__proto__',
        'POST',
        '/api/actors',
        json('{"name": "pp-json-3", "label": {"__proto__": {"polluted": "yes"}}}'),
      ),
      anyStatus(
        'label constructor',
        'POST',
        '/api/actors',
        json('{"name": "pp-json-4", "label": {"constructor": "x", "toString": "y", "hasOwnProperty": "z"}}'),
      ),
      anyStatus(
        'place __proto__',
        'POST',
        '/api/places',
        json('{"name": "pp-place", "__proto__": {"polluted": "yes"}}'),
      ),
      anyStatus('PUT __proto__', 'PUT', '/api/actors/1', json('{"__proto__": {"polluted": "yes"}}')),
      anyStatus(
        'usage __proto__',
        'POST',
        '/api/ai-cataloging/usage',
        json('{"__proto__": {"polluted": "yes"}, "provider": "p"}'),
      ),
      anyStatus(
        'reconcile __proto__',
        'POST',
        '/api/actors/reconcile',
        json('{"queries": {"__proto__": {"query": "x"}}}'),
      ),
      {
        label: 'reconcile constructor',
        method: 'GET',
        path: `/api/actors/reconcile?queries=${encodeURIComponent('{"constructor":{"query":"x"},"__proto__":{"query":"y"}}')}`,
      },
      anyStatus('form __proto__', 'POST', '/api/actors', form('name=pp-form-1&__proto__[polluted]=yes')),
      anyStatus('form constructor', 'POST', '/api/actors', form('name=pp-form-2&constructor[prototype][polluted]=yes')),
      anyStatus('form usage __proto__', 'POST', '/api/ai-cataloging/usage', form('__proto__=1&provider=p')),
      {
        label: 'query __proto__',
        path: '/api/actors?__proto__[polluted]=yes&constructor[prototype][polluted]=yes&sortField=__proto__',
      },
      { label: 'query toString', path: '/api/actors?toString=1&hasOwnProperty=1&valueOf=1' },
      {
        label: 'multipart __proto__',
        method: 'POST',
        path: '/api/sips/import',
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        body: new Uint8Array(
          multipartBody(boundary, [
            { name: '__proto__', value: 'polluted' },
            { name: 'constructor', value: 'x' },
            { name: 'file', value: zipOf({ 'a.txt': 'a' }), filename: 'a.zip' },
          ]),
        ),
      },
    ];
    const problems = await runAll(cases);

    // A later request is unaffected: its shapes hold exactly the documented keys.
    const created = await postAsEditor('/api/actors', { name: 'after pollution' });
    expect(created.status).toBe(201);
    const actor = ((await created.json()) as { data: Record<string, unknown> }).data;
    expect(Object.keys(actor).sort()).toEqual(
      [
        'abbreviations',
        'alternative_names',
        'authority_type',
        'comment',
        'created_at',
        'date_end',
        'date_start',
        'full_id',
        'fullname',
        'gnd',
        'id',
        'label',
        'name',
        'sikart',
        'type',
        'updated_at',
        'variants',
      ].sort(),
    );
    expect(actor).not.toHaveProperty('polluted');
    expect(actor).not.toHaveProperty('x');

    const list = await daemon().fetch('/api/actors?perPage=100', {
      headers: bearer(),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    expect(list.status).toBe(200);
    const listed = (await list.json()) as { data: Record<string, unknown>[]; meta: Record<string, unknown> };
    expect(Object.keys(listed.meta).sort()).toEqual(['page', 'perPage', 'total']);
    for (const item of listed.data) {
      expect(Object.hasOwn(item, 'polluted')).toBe(false);
      expect(item.label === null || typeof item.label === 'object').toBe(true);
      if (item.label) expect(Object.getPrototypeOf(item.label)).toBe(Object.prototype); // plain data, no smuggled prototype
    }
    const missing = await daemon().fetch('/api/actors/999999', {
      headers: bearer(),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    expect(missing.status).toBe(404);
    expect(Object.keys((await missing.json()) as object)).toEqual(['error']);
    const usage = await postAsEditor('/api/ai-cataloging/usage', {
      provider: 'p',
      model: 'm',
      tokens_in: 1,
      tokens_out: 2,
      cost_chf: 0.5,
      success: true,
    });
    expect(usage.status).toBe(201);
    expect(Object.keys((await usage.json()) as object)).toEqual(['id']);
    // A `polluted` key never reached this process either.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it('refuses wrong content types with 4xx JSON', async () => {
    const raw = (s: string) => new Uint8Array(Buffer.from(s)); // fetch sends no Content-Type for bytes
    const cases: FetchCase[] = [];
    for (const path of [
      '/api/actors',
      '/api/places',
      '/api/ai-cataloging/usage',
      '/api/sips/import',
      '/api/actors/reconcile',
    ]) {
      cases.push(
        guarded('text/plain', 'POST', path, [415], typed('text/plain', '{"name":"x"}')),
        guarded('application/xml', 'POST', path, [415], typed('application/xml', '<name>x</name>')),
        guarded('no content type', 'POST', path, [415], { body: raw('{"name":"x"}') }),
        guarded('empty content type', 'POST', path, [415], typed('', raw('{"name":"x"}'))),
        guarded('garbage content type', 'POST', path, [415], typed(';;;/=', raw('{"name":"x"}'))),
        guarded('json with a form body', 'POST', path, [400], typed('application/json', 'name=x&type=person')),
        guarded('json, a bare string', 'POST', path, [400, 422], json('"just a string"')),
        guarded('json, empty', 'POST', path, undefined, typed('application/json', raw(''))),
        guarded('json, whitespace', 'POST', path, [400, 422], typed('application/json', '   ')),
        guarded('json, BOM', 'POST', path, undefined, typed('application/json', '\ufeff{"name":"bom"}')),
        guarded('json, NUL bytes', 'POST', path, [400, 422], typed('application/json', raw('{"name":"\u0000"}\u0000'))),
        guarded(
          'json, invalid UTF-8',
          'POST',
          path,
          undefined,
          typed('application/json', new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
        ),
        guarded(
          'json, utf-16 charset',
          'POST',
          path,
          undefined,
          typed('application/json; charset=utf-16', raw('{"name":"x"}')),
        ),
        // JSON is UTF-8 (RFC 8259): co-body ignores a charset parameter, so this may be accepted.
        guarded(
          'json, unknown charset',
          'POST',
          path,
          undefined,
          typed('application/json; charset=klingon', raw('{"name":"x"}')),
        ),
        guarded('json, gzip that is not gzip', 'POST', path, [400, 415], {
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
          body: raw('{"name":"x"}'),
        }),
        guarded('json, unknown encoding', 'POST', path, [415], {
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'x-klingon' },
          body: raw('{"name":"x"}'),
        }),
        guarded(
          'form with a JSON body',
          'POST',
          path,
          undefined,
          typed('application/x-www-form-urlencoded', '{"name":"x"}'),
        ),
        guarded('multipart without boundary', 'POST', path, [400], typed('multipart/form-data', raw('--x\r\n\r\n'))),
        guarded(
          'multipart, empty boundary',
          'POST',
          path,
          [400],
          typed('multipart/form-data; boundary=', raw('--\r\n\r\n')),
        ),
        guarded('multipart/mixed', 'POST', path, [415], typed('multipart/mixed; boundary=x', raw('--x--\r\n'))),
      );
    }
    // A body on a read route that takes none.
    cases.push({
      label: 'POST a text body to a read-only path',
      path: '/api/objects',
      headers: { 'Content-Type': 'text/plain' },
      method: 'POST',
      body: 'x',
      expectAuthed: [405, 415],
      expectAnon: [401, 405],
    });
    expect(await runAll(cases)).toEqual([]);
    // GET with a body and a strange content type (fetch refuses bodies on GET: raw).
    const r = await runRaw({
      label: 'GET with an XML body',
      payload: (authed) =>
        rawRequest('GET', '/api/actors', { ...authHeader(authed), 'Content-Type': 'application/xml' }, '<x/>'),
      expectAuthed: [200, 400, 415],
      expectAnon: [401],
    });
    expect(r.problems).toEqual([]);
  });
});

describe('multipart: truncated and malformed', () => {
  const zip = zipOf({ 'hello.txt': 'hello\n'.repeat(2000) });

  it('answers 400 for a multipart body cut short inside a complete HTTP message', async () => {
    const boundary = newBoundary();
    const full = sipBody(boundary, zip, { identifier: 'cut-1' });
    /** A multipart upload to /api/sips/import with this test's boundary. */
    const upload = (label: string, expectAuthed: number[], bytes: Uint8Array, path = '/api/sips/import') =>
      guarded(
        label,
        'POST',
        path,
        expectAuthed,
        typed(`multipart/form-data; boundary=${boundary}`, new Uint8Array(bytes)),
      );
    const cases: FetchCase[] = [];
    for (const keep of [10, 60, 200, Math.floor(full.length / 2), full.length - 30, full.length - 3]) {
      for (const path of ['/api/sips/import', '/api/actors']) {
        cases.push(upload(`multipart cut at ${keep}`, [400], full.subarray(0, keep), path));
      }
    }
    const fields = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, value: 'v' }));
    const files = (n: number) => Array.from({ length: n }, () => ({ name: 'file', value: zip, filename: 'a.zip' }));
    const longTitle = [{ name: 'title', value: 't'.repeat(100_000) }, ...files(1)];
    cases.push(
      upload('multipart, no boundary lines', [400, 422], Buffer.from('garbage'.repeat(100))),
      guarded(
        'multipart, wrong boundary',
        'POST',
        '/api/sips/import',
        [400, 422],
        typed('multipart/form-data; boundary=other', new Uint8Array(full)),
      ),
      upload(
        'multipart, part without headers',
        [400, 422],
        Buffer.from(`--${boundary}\r\n\r\nvalue\r\n--${boundary}--\r\n`),
      ),
      upload(
        'multipart, endless part headers',
        [400, 413, 422],
        Buffer.from(`--${boundary}\r\n${'X-H: v\r\n'.repeat(5000)}\r\nvalue\r\n--${boundary}--\r\n`),
      ),
      upload('multipart, 500 fields', [413, 422], multipartBody(boundary, fields(500))),
      upload('multipart, 10 files', [413, 422], multipartBody(boundary, files(10))),
      upload('multipart, a 100 KB text field', [413, 422], multipartBody(boundary, longTitle)),
      upload(
        'multipart, not a zip',
        [422],
        multipartBody(boundary, [{ name: 'file', value: 'not a zip at all', filename: 'a.zip' }]),
      ),
      upload('multipart, empty file', [422], multipartBody(boundary, [{ name: 'file', value: '', filename: 'a.zip' }])),
    );
    expect(await runAll(cases)).toEqual([]);
  });

  it('answers 400 for a multipart stream that ends early (fetch with a short ReadableStream)', async () => {
    const problems: string[] = [];
    for (const authed of [true, false]) {
      const boundary = newBoundary();
      const full = sipBody(boundary, zip);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new Uint8Array(full.subarray(0, 1000)));
          controller.close(); // ends mid-file: no closing boundary ever comes
        },
      });
      try {
        const res = await daemon().fetch('/api/sips/import', {
          method: 'POST',
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, ...authHeader(authed) },
          body,
          duplex: 'half',
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        } as RequestInit);
        const a = { status: res.status, headers: res.headers, text: await res.text() };
        problems.push(...judge(`short stream${authed ? ' [editor]' : ' [no token]'}`, a));
        if (a.status !== (authed ? 400 : 401))
          problems.push(`short stream: expected ${authed ? 400 : 401}, got ${a.status}`);
      } catch (err) {
        stats.cases++;
        problems.push(`short stream: no answer (${(err as Error).message})`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('closes (never hangs on) a request whose body is cut at the TCP level', async () => {
    const boundary = newBoundary();
    const full = sipBody(boundary, zip);
    const problems: string[] = [];
    for (const keep of [0, 100, 5000]) {
      const r = await runRaw({
        label: `Content-Length ${full.length}, ${keep} bytes, then FIN`,
        payload: (authed) =>
          rawRequest(
            'POST',
            '/api/sips/import',
            {
              ...authHeader(authed),
              'Content-Type': `multipart/form-data; boundary=${boundary}`,
              'Content-Length': String(full.length),
            },
            full.subarray(0, keep),
          ),
        endAfterWrite: true,
        mayClose: true,
      });
      problems.push(...r.problems);
      for (const o of r.outcomes)
        if (o.kind === 'response' && o.response.status >= 500) problems.push(`cut at ${keep}: ${o.response.status}`);
    }
    // Chunked, ended without the last chunk.
    const r = await runRaw({
      label: 'chunked multipart without its last chunk, then FIN',
      payload: (authed) => [
        rawRequest('POST', '/api/sips/import', {
          ...authHeader(authed),
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Transfer-Encoding': 'chunked',
        }),
        `3e8\r\n`,
        full.subarray(0, 1000),
        '\r\n',
      ],
      endAfterWrite: true,
      mayClose: true,
    });
    problems.push(...r.problems);
    expect(problems).toEqual([]);
    // The daemon is still serving.
    const res = await daemon().fetch('/api/objects', {
      headers: bearer(),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    expect(res.status).toBe(200);
  });
});

describe('URLs, headers and query strings', () => {
  it('copes with bad percent-encoding in path and query', async () => {
    const cases: FetchCase[] = [
      { label: 'bad search', path: '/api/actors?search=%E0%A4%A', expectAuthed: [200, 400, 422], expectAnon: [401] },
      { label: 'bad path', path: '/api/%ZZ', expectAuthed: [404, 400], expectAnon: [401, 404, 400] },
      { label: 'bad path 2', path: '/api/actors%ZZ', expectAuthed: [404, 400], expectAnon: [401, 404, 400] },
      { label: 'lone %', path: '/api/actors?search=%', expectAuthed: [200, 400, 422], expectAnon: [401] },
      { label: 'bad key', path: '/api/actors?%ZZ=1&%=2', expectAuthed: [200, 400, 422], expectAnon: [401] },
      {
        label: 'overlong UTF-8',
        path: '/api/actors?search=%C0%AE%C0%AE',
        expectAuthed: [200, 400, 422],
        expectAnon: [401],
      },
      { label: 'NUL in search', path: '/api/actors?search=%00', expectAuthed: [200, 422], expectAnon: [401] },
      {
        label: 'surrogate half',
        path: '/api/actors?search=%ED%A0%80',
        expectAuthed: [200, 400, 422],
        expectAnon: [401],
      },
      { label: 'like wildcards', path: '/api/actors?search=%25%5F%5C', expectAuthed: [200], expectAnon: [401] },
      { label: 'bad ids', path: '/api/tei/actors?ids=%ZZ', expectAuthed: [400, 422], expectAnon: [401] },
      {
        label: 'bad queries',
        path: '/api/places/reconcile?queries=%7B%ZZ',
        expectAuthed: [400, 422],
        expectAnon: [401],
      },
      {
        label: 'bad beacon provider',
        path: '/api/actors?format=beacon&provider=%E0%A4%A',
        expectAuthed: [200, 400, 422],
        expectAnon: [401],
      },
      {
        label: 'encoded api_token key, bad value',
        path: '/api/actors?api%5Ftoken=%ZZ',
        expectAuthed: [401],
        expectAnon: [401],
      },
      { label: 'bad path id', path: '/api/places/%E0%A4%A', expectAuthed: [404], expectAnon: [401] },
      { label: 'encoded slash', path: '/api/actors%2F1', expectAuthed: [404], expectAnon: [401, 404] },
      { label: 'outside /api', path: '/%ZZ', expectAuthed: [404, 400], expectAnon: [404, 400] },
    ];
    expect(await runAll(cases)).toEqual([]);
  });

  it('answers 431 with a JSON body for oversized headers', async () => {
    const problems: string[] = [];
    const big = 'a'.repeat(20 * 1024);
    for (const [label, extra] of [
      ['one 20 KB header', { 'X-Big': big }],
      ['a 20 KB Authorization header', { Authorization: `Bearer ${big}` }],
      ['a 20 KB cookie', { Cookie: `c=${big}` }],
      ['2,000 small headers', Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`X-H${i}`, 'vvvvvv']))],
    ] as [string, Record<string, string>][]) {
      const r = await runRaw(
        {
          label,
          payload: (authed) => rawRequest('GET', '/api/actors', { ...authHeader(authed), ...extra }),
          expectAuthed: [431],
          expectAnon: [431],
        },
        label.includes('Authorization') ? [false] : [true, false],
      );
      problems.push(...r.problems);
    }
    // A 20 KB URL counts against the same limit.
    const r = await runRaw({
      label: '20 KB URL',
      payload: (authed) => rawRequest('GET', `/api/actors?search=${big}`, authHeader(authed)),
      expectAuthed: [431, 414, 422],
      expectAnon: [431, 414, 401],
    });
    problems.push(...r.problems);
    expect(problems).toEqual([]);
  });

  it('copes with a thousand (and two thousand) query parameters', async () => {
    const many = (n: number, key: (i: number) => string) =>
      Array.from({ length: n }, (_, i) => `${key(i)}=${i}`).join('&');
    const cases: FetchCase[] = [
      {
        label: '1000 distinct params',
        path: `/api/actors?${many(1000, (i) => `p${i}`)}`,
        expectAuthed: [200, 422],
        expectAnon: [401],
      },
      {
        label: '1000 page params',
        path: `/api/actors?${many(1000, () => 'page')}`,
        expectAuthed: [422],
        expectAnon: [401],
      },
      {
        label: '1000 search params',
        path: `/api/places?${many(1000, () => 'search')}`,
        expectAuthed: [422],
        expectAnon: [401],
      },
      {
        label: '1000 ids params',
        path: `/api/tei/keywords?${many(1000, () => 'ids')}`,
        expectAuthed: [422],
        expectAnon: [401],
      },
      {
        label: '1000 params then api_token',
        path: `/api/actors?${many(1000, (i) => `p${i}`)}&api_token=x`,
        expectAuthed: [401],
        expectAnon: [401],
      },
      // About 19 KB of URL: over the 16 KB header limit, so 431 (the request line counts).
      {
        label: '2000 params',
        path: `/api/objects?${many(2000, (i) => `q${i}`)}`,
        expectAuthed: [200, 422, 431],
        expectAnon: [401, 431],
      },
    ];
    expect(await runAll(cases)).toEqual([]);
  });

  it('refuses array-valued parameters with 422 (or ignores unknown bracket keys)', async () => {
    const cases: FetchCase[] = [];
    for (const list of ['/api/actors', '/api/places', '/api/keywords', '/api/objects']) {
      for (const q of [
        'page=1&page=2',
        'perPage=5&perPage=10',
        'sortField=name&sortField=id',
        'search=a&search=b',
        'sortAsc=1&sortAsc=0',
        'format=json&format=select2',
      ]) {
        cases.push({ label: q, path: `${list}?${q}`, expectAuthed: [422], expectAnon: [401] });
      }
      for (const q of ['perPage[]=5', 'page[]=1', 'page[a]=1', 'sortField[]=name']) {
        cases.push({ label: q, path: `${list}?${q}`, expectAuthed: [200, 422], expectAnon: [401] });
      }
    }
    cases.push(
      { label: 'ids twice', path: '/api/tei/actors?ids=1&ids=2', expectAuthed: [422], expectAnon: [401] },
      {
        label: 'queries twice',
        path: '/api/actors/reconcile?queries=%7B%7D&queries=%7B%7D',
        expectAuthed: [422],
        expectAnon: [401],
      },
      {
        label: 'provider twice',
        path: '/api/actors?format=beacon&provider=gnd&provider=viaf',
        expectAuthed: [200, 422],
        expectAnon: [401],
      },
    );
    expect(await runAll(cases)).toEqual([]);
  });

  it('refuses absurd list values with 422', async () => {
    const cases: FetchCase[] = [];
    const pages = ['-1', '0', '1e308', '1.5', 'NaN', 'Infinity', '0x10', '%201', '99999999999999999999', '1000001'];
    const sortFields = [
      'password',
      'secret_hash',
      'id;DROP TABLE actors',
      'id desc, (select 1)',
      '__proto__',
      'constructor',
    ];
    const bad = [
      ...pages.map((v) => `page=${v}`),
      ...['0', '100000', '-5', '101'].map((v) => `perPage=${v}`),
      ...sortFields.map((v) => `sortField=${encodeURIComponent(v)}`),
      ...['sortAsc=2', 'sortAsc=yes', 'format=xml', `search=${'s'.repeat(10_000)}`],
    ];
    // Every value on two of the lists and every list with half of the values (a fixed sample: the
    // four lists read their parameters with one parser).
    const lists = ['/api/actors', '/api/places', '/api/keywords', '/api/objects'];
    for (const shift of [0, 2])
      for (const [list, q] of sampledPairs(lists, bad, shift))
        cases.push({ label: q.slice(0, 40), path: `${list}?${q}`, expectAuthed: [422], expectAnon: [401] });
    // The largest page is fine (an empty page), not a 5xx.
    cases.push({
      label: 'page=1000000',
      path: '/api/actors?page=1000000&perPage=100',
      expectAuthed: [200],
      expectAnon: [401],
    });
    cases.push({
      label: 'keywords beacon',
      path: '/api/keywords?format=beacon',
      expectAuthed: [200, 422],
      expectAnon: [401],
    });
    // TEI ids.
    const tenThousand = Array.from({ length: 10_000 }, (_, i) => i + 1).join(',');
    const twoThousand = Array.from({ length: 2_000 }, (_, i) => i + 1).join(',');
    for (const ids of [
      '1,,2',
      '',
      ',',
      '-1',
      'abc',
      '1e3',
      '1.5',
      '0',
      '9999999999999999999999',
      '2147483648',
      ' 1 , 2 ',
      '1;DROP TABLE actors',
    ]) {
      for (const kind of ['actors', 'places', 'keywords']) {
        // 404 names ids that do not exist; 422 a list that is not one.
        cases.push({
          label: `ids=${ids}`,
          path: `/api/tei/${kind}?ids=${encodeURIComponent(ids)}`,
          expectAuthed: [200, 404, 422],
          expectAnon: [401],
        });
      }
    }
    // 10,000 ids make a URL longer than the header limit (431) or are refused (422).
    cases.push({
      label: 'ids=10,000 ids',
      path: `/api/tei/actors?ids=${tenThousand}`,
      expectAuthed: [200, 404, 422, 431],
      expectAnon: [401, 431],
    });
    cases.push({
      label: 'ids=2,000 ids',
      path: `/api/tei/places?ids=${twoThousand}`,
      expectAuthed: [200, 404, 422],
      expectAnon: [401],
    });
    expect(await runAll(cases)).toEqual([]);

    // After all that, a sane list request still works.
    const ok = await daemon().fetch('/api/actors?page=1&perPage=100&sortField=name&sortAsc=0', {
      headers: bearer(),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    expect(ok.status).toBe(200);
  });
});

describe('methods', () => {
  const known = [
    ...['/api/actors', '/api/actors/1', '/api/objects', '/api/sips/import'],
    ...['/api/tei/refresh', '/api/places/1', '/api/ai-cataloging/usage', '/api/keywords/reconcile'],
  ];

  it('answers 405 with Allow for a wrong method on a known path, 404 on an unknown one', async () => {
    const problems: string[] = [];
    const wrongMethods = [
      ...['PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PURGE'],
      ...['PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'COPY'], // WebDAV
    ];
    // Every wrong method on four of the known paths and every path with half of the methods (a
    // fixed sample: one rule refuses a method the path lacks); each on the unknown path.
    for (const [i, method] of wrongMethods.entries()) {
      for (const path of known.filter((_, k) => (k + i) % 2 === 0)) {
        const r = await runRaw({
          label: `${method} ${path}`,
          payload: (authed) => rawRequest(method, path, authHeader(authed)),
          expectAuthed: [405],
          expectAnon: [401, 405],
        });
        problems.push(...r.problems);
      }
      const r = await runRaw({
        label: `${method} /api/nothing-here`,
        payload: (authed) => rawRequest(method, '/api/nothing-here', authHeader(authed)),
        expectAuthed: [404],
        expectAnon: [401, 404],
      });
      problems.push(...r.problems);
    }
    // Wrong methods among the ones the matrix uses.
    for (const [method, path] of [
      ['PUT', '/api/objects'],
      ['POST', '/api/objects'],
      ['POST', '/api/actors/1'],
      ['PUT', '/api/places/1'],
      ['GET', '/api/sips/import'],
      ['HEAD', '/api/sips/import'],
      ['GET', '/api/ai-cataloging/usage'],
      ['GET', '/api/ingest/confirm/1'],
      ['POST', '/api/tei/refresh'],
      ['PUT', '/api/keywords'],
    ] as const) {
      const r = await runRaw({
        label: `${method} ${path}`,
        payload: (authed) =>
          rawRequest(method, path, {
            ...authHeader(authed),
            ...(method === 'HEAD' || method === 'GET' ? {} : { 'Content-Length': '0' }),
          }),
        head: method === 'HEAD',
        expectAuthed: [405],
        expectAnon: [401, 405],
      });
      problems.push(...r.problems);
    }
    // HEAD on every GET route answers like GET, without a body.
    for (const path of [
      '/api/objects',
      '/api/actors',
      '/api/places',
      '/api/keywords',
      '/api/tei/actors',
      '/api/actors/reconcile',
      '/api/actors/999',
    ]) {
      const r = await runRaw({
        label: `HEAD ${path}`,
        payload: (authed) => rawRequest('HEAD', path, authHeader(authed)),
        head: true,
        expectAuthed: [200, 404],
        expectAnon: [401],
      });
      problems.push(...r.problems);
    }
    expect(problems).toEqual([]);
  });

  it('leaves methods that Node itself refuses to Node (FOOBAR → 400 JSON; CONNECT → closed)', async () => {
    const problems: string[] = [];
    // llhttp does not know the method: the daemon's clientError handler answers 400 JSON.
    for (const method of ['FOOBAR', 'GETT', 'get']) {
      const r = await runRaw({
        label: `${method} /api/actors`,
        payload: (authed) => rawRequest(method, '/api/actors', authHeader(authed)),
        expectAuthed: [400],
        expectAnon: [400],
      });
      problems.push(...r.problems);
    }
    // CONNECT goes to the server's 'connect' event; without a listener Node closes the socket.
    const r = await runRaw({
      label: 'CONNECT 127.0.0.1:1',
      payload: (authed) => rawRequest('CONNECT', '127.0.0.1:1', authHeader(authed)),
      mayClose: true,
    });
    problems.push(...r.problems);
    for (const o of r.outcomes)
      if (o.kind === 'response' && o.response.status >= 500) problems.push(`CONNECT: ${o.response.status}`);
    // Not HTTP at all.
    const junk = await runRaw({
      label: 'not HTTP',
      payload: () => Buffer.from('\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03garbage\r\n\r\n', 'latin1'),
      expectAuthed: [400],
      expectAnon: [400],
      mayClose: true,
    });
    problems.push(...junk.problems);
    const smuggle = await runRaw({
      label: 'Content-Length and Transfer-Encoding',
      payload: (authed) =>
        rawRequest(
          'POST',
          '/api/actors',
          {
            ...authHeader(authed),
            'Content-Type': 'application/json',
            'Content-Length': '4',
            'Transfer-Encoding': 'chunked',
          },
          '0\r\n\r\n',
        ),
      expectAuthed: [400],
      expectAnon: [400],
    });
    problems.push(...smuggle.problems);
    expect(problems).toEqual([]);
  });
});

describe('property: random requests under /api', () => {
  it('never answers 5xx, always completes, always JSON errors (fast-check, 200 runs)', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'actors',
        'places',
        'keywords',
        'objects',
        'sips',
        'import',
        'ingest',
        'confirm',
        'failed',
        'tei',
        'refresh',
        'reconcile',
        'ai-cataloging',
        'usage',
      ),
      fc.constantFrom('1', '0', '-1', '2147483648', '1e3', '..', '%2e', '%00', '%ZZ', '%E0%A4%A', '', 'api_token'),
      fc.webSegment(),
      fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
    );
    const path = fc.array(segment, { minLength: 0, maxLength: 4 }).map((parts) => `/api/${parts.join('/')}`);
    const key = fc.oneof(
      fc.constantFrom(...QUERY_PARAMETERS, 'page[]', '__proto__', 'constructor[prototype][x]'),
      fc.string({ maxLength: 8 }),
    );
    const value = fc.oneof(
      fc.constantFrom(
        '1',
        '0',
        '-1',
        '1e308',
        '100000',
        'name',
        'id;DROP TABLE actors',
        'beacon',
        'select2',
        '1,,2',
        '{"q0":{"query":"a"}}',
        '{',
        '%ZZ',
      ),
      fc.string({ maxLength: 20 }),
      fc.integer().map(String),
    );
    const query = fc
      .array(fc.tuple(key, value), { maxLength: 6 })
      .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
    const rawQuery = fc.constantFrom('', 'search=%E0%A4%A', '%ZZ', '&&&', '=', 'a=1&a=2&a=3', 'page=1&page=2');
    const body = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 4 }).map((v) => ({ type: 'application/json', text: JSON.stringify(v) })),
      fc
        .dictionary(
          fc.constantFrom(
            'name',
            'type',
            'label',
            'provider',
            'model',
            'tokens_in',
            'cost_chf',
            'success',
            'location',
            'reason',
            'queries',
            '__proto__',
            'constructor',
          ),
          fc.jsonValue({ maxDepth: 2 }),
          { maxKeys: 6 },
        )
        .map((o) => ({
          type: 'application/json',
          text: JSON.stringify(o),
        })),
      fc.string({ maxLength: 200 }).map((s) => ({ type: 'application/json', text: s })),
      fc.string({ maxLength: 200 }).map((s) => ({ type: 'application/x-www-form-urlencoded', text: s })),
      fc.string({ maxLength: 200 }).map((s) => ({ type: 'text/plain', text: s })),
      fc.string({ maxLength: 200 }).map((s) => ({ type: 'multipart/form-data; boundary=xyz', text: `--xyz\r\n${s}` })),
    );
    const request = fc.record({
      method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'PUT', 'HEAD', 'DELETE', 'PATCH', 'OPTIONS'),
      path,
      query: fc.oneof(query, rawQuery),
      body,
      authed: fc.boolean(),
    });

    const problems: string[] = [];
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        runs++;
        const target = r.query ? `${r.path}?${r.query}` : r.path;
        const label = `property #${runs}: ${r.method} ${target.slice(0, 150)}${r.body ? ` (${r.body.type}, ${r.body.text.length} chars)` : ''}${r.authed ? ' [editor]' : ' [no token]'}`;
        const withBody = r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD';
        let outcome: RawOutcome;
        try {
          // Raw: fetch would normalise or refuse some of these paths and methods.
          outcome = await rawExchange(
            daemon().url,
            rawRequest(
              r.method,
              target,
              { ...authHeader(r.authed), ...(withBody ? { 'Content-Type': r.body!.type } : {}) },
              withBody ? r.body!.text : undefined,
            ),
            { timeoutMs: REQUEST_TIMEOUT_MS, head: r.method === 'HEAD' },
          );
        } catch (err) {
          stats.cases++;
          problems.push(`${label}: ${(err as Error).message}`);
          return true;
        }
        if (outcome.kind === 'closed') {
          stats.cases++;
          problems.push(`${label}: closed without an answer (${outcome.error ?? 'FIN'})`);
          return true;
        }
        problems.push(...judge(label, outcome.response, { head: r.method === 'HEAD' }));
        return true; // problems are collected, so every 5xx is counted, not only the first
      }),
      { seed: 20260521, numRuns: 200, endOnFailure: true },
    );
    expect(runs).toBe(200);
    expect(problems).toEqual([]);
  });
});

describe('afterwards', () => {
  it('the daemon is alive, serving, and logged no unhandled error', async () => {
    const why = `daemon stderr:\n${daemon().stderr()}\nlast log lines:\n${daemon().logs.slice(-5).join('\n')}`;
    expect(daemon().running(), why).toBe(true);
    const res = await daemon().fetch('/api/actors?perPage=1', {
      headers: bearer(),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    expect(res.status).toBe(200);
    const created = await postAsEditor('/api/actors', { name: 'still alive' });
    expect(created.status).toBe(201);
    const errors = logEntries(daemon()).filter((e) => e.level === 'error' || e.level === 'fatal');
    expect(errors.map((e) => JSON.stringify(e).slice(0, 400))).toEqual([]);
    expect(daemon().stderr()).toBe('');
  });
});
