// Issue 35's acceptance: an integrator points openapi-typescript at GET /api/openapi.json, gets
// a typed client (openapi-fetch), and the README's quickstart (create an actor, list actors, read
// it back, GET /api/token) compiles under tsc --strict without a cast and runs unchanged.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, expect, it } from 'vitest';
import type { QuickstartResult } from '../fixtures/openapi-client/result.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside the checkout (dist/ is ignored), so the generated files resolve openapi-fetch.
const DIR = path.join(ROOT, 'dist', `openapi-client-${process.pid}`);

const { daemon, api, t } = useDaemonWithTokens();

afterAll(() => rm(DIR, { recursive: true, force: true }));

interface QuickstartModule {
  quickstart(baseUrl: string, token: string): Promise<QuickstartResult>;
}

it('generates a typed client from the served description that runs the quickstart', async () => {
  const served = await api.get('/api/openapi.json');
  expect(served.status).toBe(200);
  await mkdir(DIR, { recursive: true });
  const types = astToString(await openapiTS(served.text));
  await writeFile(path.join(DIR, 'schema.d.ts'), types);
  const file = path.join(DIR, 'quickstart.ts');
  const fixtures = path.join(ROOT, 'test', 'fixtures', 'openapi-client');
  await copyFile(path.join(fixtures, 'quickstart.ts'), file);
  await copyFile(path.join(fixtures, 'result.ts'), path.join(DIR, 'result.ts'));
  // Answers typed `never` or `unknown`, or a wrong path, would not compile.
  const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
  const flags = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--skipLibCheck'];
  await run(tsc, [...flags, '--types', 'node', file], { cwd: DIR }).catch((err: { stdout?: string }) => {
    throw new Error(`tsc: ${err.stdout ?? String(err)}`);
  });

  const { quickstart } = (await import(pathToFileURL(file).href)) as QuickstartModule;
  const out = await quickstart(daemon().url, t.editor);
  expect(out.created.name).toBe('Ada Lovelace');
  expect(out.created.fullId).toMatch(new RegExp(`-actors-${out.created.id}$`));
  expect(out.listed).toContain('Ada Lovelace');
  expect(out.total).toBeGreaterThanOrEqual(1);
  expect(out.readBack).toBe('Ada Lovelace');
  expect(out.location).toBe(`${daemon().url}/api/actors/${out.created.id}`);
  expect(out.token.role).toBe('editor');
});
