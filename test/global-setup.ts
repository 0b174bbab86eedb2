// Before any test file runs: builds what users run, dist/bundle/ (`npm run build`:
// rolldown.config.js), so that the binary tests spawn always matches the source that in-process
// tests import (again only when that source changed since this setup last built it); then migrates one template installation with that binary, which every sandbox
// made with the schema applied starts from as a copy (test/helpers/cli.ts createSandbox) instead
// of running the migrations again. Types are judged by `npm run typecheck`, not here.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'rolldown';
import type { TestProject } from 'vitest/node';
import config from '../rolldown.config.js';
import { CLEARED_ENV, pgAdmin, PG_URL, type SandboxTemplate } from './helpers/cli.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxTemplate: SandboxTemplate;
  }
}

/** `archivectl --config <dir>/config.json migrate` with the built binary; throws when it fails. */
function migrate(dir: string, env: Record<string, string>): void {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const name of CLEARED_ENV) if (!(name in env)) delete childEnv[name];
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'archivectl'), '--config', 'config.json', 'migrate'], {
    cwd: dir,
    env: childEnv,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`the template's archivectl migrate failed (${r.status}):\n${r.stderr}`);
}

/** What the build reads: src/, its configuration and the locked packages, as one hash. */
function inputsHash(): string {
  const hash = createHash('sha256');
  const files = readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
  for (const file of [
    ...files,
    ...['rolldown.config.js', 'package.json', 'package-lock.json'].map((f) => path.join(ROOT, f)),
  ])
    hash
      .update(`${path.relative(ROOT, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  return hash.digest('hex');
}

/**
 * The outputs in turn, as `rolldown -c` builds them (the first one empties dist/bundle/), unless
 * this setup built the bundle from the same inputs before (a stamp in node_modules/.cache); then
 * the template.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stamp = path.join(ROOT, 'node_modules', '.cache', 'archivectl-test-bundle');
  const inputs = inputsHash();
  const built = existsSync(path.join(ROOT, 'dist', 'bundle', 'archivectl.cjs')) && existsSync(stamp);
  if (!built || readFileSync(stamp, 'utf8') !== inputs) {
    rmSync(stamp, { force: true });
    for (const output of config as BuildOptions[]) await build({ ...output, cwd: ROOT, logLevel: 'warn' });
    mkdirSync(path.dirname(stamp), { recursive: true });
    writeFileSync(stamp, inputs);
  }

  const dir = mkdtempSync(path.join(os.tmpdir(), 'archivectl-template-'));
  // The sandbox's own configuration (testDatabaseConfig): the file sits beside config.json.
  writeFileSync(path.join(dir, 'config.json'), '{"database":{"filename":"./archive.sqlite3"},"dataDir":"./data"}\n', {
    mode: 0o600,
  });
  migrate(dir, {});
  let pgDatabase: string | null = null;
  if (PG_URL) {
    pgDatabase = `sandbox_template_${process.pid}`;
    await pgAdmin(`DROP DATABASE IF EXISTS "${pgDatabase}"`);
    await pgAdmin(`CREATE DATABASE "${pgDatabase}"`);
    const url = new URL(PG_URL);
    url.pathname = `/${pgDatabase}`;
    migrate(dir, { DATABASE_URL: url.toString() });
  }
  project.provide('sandboxTemplate', { sqliteFile: path.join(dir, 'archive.sqlite3'), pgDatabase });
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (pgDatabase) await pgAdmin(`DROP DATABASE IF EXISTS "${pgDatabase}" WITH (FORCE)`);
  };
}
