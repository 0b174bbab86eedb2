// Issue 35's acceptance: an integrator points openapi-typescript at GET /api/openapi.json, gets
// a typed client (openapi-fetch), and the quickstart (create, list, read back, GET /api/token;
// every actor along `Link` rel="next", a change, a SIP upload, a reconciliation batch, a leaked
// token's report) compiles under tsc --strict without a cast and runs unchanged. Requests the
// daemon refuses for their shape do not compile (refused.ts), and are refused when sent.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { QuickstartResult } from '../fixtures/openapi-client/result.js';
import { storedZip } from '../helpers/api.js';
import { createToken } from '../helpers/cli.js';
import { noSleepClock } from '../helpers/daemon.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside the checkout (dist/ is ignored), so the generated files resolve openapi-fetch.
const DIR = path.join(ROOT, 'dist', `openapi-client-${process.pid}`);
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'openapi-client');
const TSC = path.join(ROOT, 'node_modules', '.bin', 'tsc');
const FLAGS = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--skipLibCheck'];

// POST /api/tokens/revoke answers no sooner than half a second: the quickstart's report is not slept.
const { cli, daemon, api, t } = useDaemonWithTokens({ clock: noSleepClock() });

/** tsc --strict over the given files of DIR: its report, empty when they compile. */
async function tsc(...files: string[]): Promise<string> {
  const paths = files.map((f) => path.join(DIR, f));
  return run(TSC, [...FLAGS, '--types', 'node', ...paths], { cwd: DIR }).then(
    () => '',
    (err: { stdout?: string }) => err.stdout ?? String(err),
  );
}

/**
 * The diagnostics of a tsc report, each a line naming its file, line and column (`file` its base
 * name) or naming none (`file` ''), with the indented lines after it.
 */
function diagnostics(report: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  for (const line of report.split('\n')) {
    if (line.trim() === '') continue;
    const last = out.at(-1);
    if (last && /^\s/.test(line)) last.text += `\n${line}`;
    else out.push({ file: path.basename(/^(.+?)\(\d+,\d+\): /.exec(line)?.[1] ?? ''), text: line });
  }
  return out;
}

// The client as openapi-typescript's documentation generates one for uploads: a binary part
// (a string of a non-JSON media type) as a Blob.
const BLOB = ts.factory.createTypeReferenceNode('Blob');
const binary = (schema: { type?: unknown; contentMediaType?: unknown; format?: unknown }) =>
  schema.type === 'string' &&
  (schema.format === 'binary' ||
    (typeof schema.contentMediaType === 'string' && !/json/.test(schema.contentMediaType)));

beforeAll(async () => {
  const served = await api.get('/api/openapi.json');
  expect(served.status).toBe(200);
  await mkdir(DIR, { recursive: true });
  const types = astToString(await openapiTS(served.text, { transform: (s) => (binary(s) ? BLOB : undefined) }));
  await writeFile(path.join(DIR, 'schema.d.ts'), types);
  for (const f of ['quickstart.ts', 'refused.ts', 'result.ts'])
    await copyFile(path.join(FIXTURES, f), path.join(DIR, f));
  // refused.ts without its directives, where every marked line is an error of its own.
  const text = await readFile(path.join(DIR, 'refused.ts'), 'utf8');
  marked = text.split('\n').filter((l) => l.includes('// @ts-expect-error')).length;
  await writeFile(path.join(DIR, 'unmarked.ts'), text.replaceAll('// @ts-expect-error', '//'));
  // One tsc run over the three (modules of their own, sharing schema.d.ts), each judged by the
  // diagnostics naming it: a run takes seconds, most of them reading the same declarations.
  report = diagnostics(await tsc('quickstart.ts', 'refused.ts', 'unmarked.ts'));
});

/** The marked lines of refused.ts, and the diagnostics of the tsc run over the three files. */
let marked = 0;
let report: { file: string; text: string }[] = [];

afterAll(() => rm(DIR, { recursive: true, force: true }));

interface QuickstartModule {
  quickstart(baseUrl: string, token: string, sip: Uint8Array, leaked: string): Promise<QuickstartResult>;
}
interface RefusedModule {
  refused(baseUrl: string, token: string): Promise<Record<string, number>>;
}

it('generates a typed client from the served description that runs the quickstart', async () => {
  // Answers typed `never` or `unknown`, or a wrong path, would not compile.
  // No diagnostic but those of unmarked.ts and refused.ts (judged below): none of quickstart.ts,
  // schema.d.ts or one naming no file.
  expect(report.filter((d) => !['refused.ts', 'unmarked.ts'].includes(d.file)).map((d) => d.text)).toEqual([]);
  // More actors than one page holds, so the quickstart follows `Link` from page to page.
  for (const name of ['Charles Babbage', 'Mary Somerville', 'Luigi Menabrea', 'Augustus De Morgan'])
    expect((await api.post('/api/actors', { name }, t.editor)).status).toBe(201);
  const leaked = (await createToken(cli(), 'ed', 'leaked', 'root')).token;
  const { quickstart } = (await import(pathToFileURL(path.join(DIR, 'quickstart.ts')).href)) as QuickstartModule;
  const out = await quickstart(daemon().url, t.editor, storedZip({ 'manifest.txt': 'quickstart\n' }), leaked);
  expect(out.created.name).toBe('Ada Lovelace');
  expect(out.created.fullId).toMatch(new RegExp(`-actors-${out.created.id}$`));
  expect(out.listed).toContain('Ada Lovelace');
  expect(out.total).toBeGreaterThanOrEqual(1);
  expect(out.readBack).toBe('Ada Lovelace');
  expect(out.location).toBe(`${daemon().url}/api/actors/${out.created.id}`);
  expect(out.token.role).toBe('editor');
  // Every actor, two a page: as many names as the list counts, each once.
  const all = await api.get('/api/actors?perPage=1', t.user);
  const total = (all.body as { meta: { total: number } }).meta.total;
  expect(total).toBe(5);
  expect(out.everyActor.names).toHaveLength(total);
  expect(new Set(out.everyActor.names).size).toBe(total);
  expect(out.everyActor.pages).toBe(3);
  expect(out.changed).toEqual({ name: 'Augusta Ada King', comment: 'Countess of Lovelace' });
  expect(out.sip.status).toBe(202);
  expect(out.sip.receipt).toMatchObject({ id: expect.any(Number) as number, status: 'received' });
  expect(out.sip.location).toBe(`${daemon().url}/api/objects?identifier=${out.sipObject.identifier}`);
  expect(out.sipObject.listed).toBe(1);
  expect(out.reconciled).toEqual({ names: expect.arrayContaining(['Augusta Ada King']) as unknown, error: null });
  expect(out.leak).toEqual({ status: 202, received: 1, afterwards: 401 });
});

it('does not compile requests the daemon refuses for their shape, and the daemon refuses each', async () => {
  expect(report.filter((d) => d.file === 'refused.ts').map((d) => d.text)).toEqual([]);
  // Without its directives, every marked line is an error of its own.
  expect(marked).toBeGreaterThanOrEqual(10);
  const errors = report.filter((d) => d.file === 'unmarked.ts' && /\(\d+,\d+\): error/.test(d.text)).map((d) => d.text);
  expect(new Set(errors.map((l) => /\((\d+),/.exec(l)?.[1])).size).toBe(marked);

  const { refused } = (await import(pathToFileURL(path.join(DIR, 'refused.ts')).href)) as RefusedModule;
  const statuses = await refused(daemon().url, t.editor);
  expect(Object.keys(statuses)).toHaveLength(marked);
  for (const [shape, status] of Object.entries(statuses)) expect([415, 422], shape).toContain(status);
});
