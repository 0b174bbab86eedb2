#!/usr/bin/env node
// npm's "prepare": builds dist/ from src/ when TypeScript is installed (a checkout, `npm ci`),
// then the bundle bin/archivectl runs, dist/bundle/ (scripts/build-bundle.js), then writes the
// manual page man/archivectl.1 and the shell completions completion/archivectl.bash and
// completion/_archivectl (zsh) from the built command tree; the package ships all three (the
// production install puts them where man, bash and zsh look: docs/operations.md).
// A production install (`npm ci --omit=dev` on a built tree, or a packed tarball) has no
// TypeScript: it uses the bundle already there, and only fails when there is none to use.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let tsc;
try {
  tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  tsc = null;
}
if (tsc) {
  // The build info the tests' global setup (test/global-setup.ts) keeps too: after `npm ci`,
  // `npm test` finds dist/ up to date instead of compiling src/ a second time. Without a dist/
  // the build info would call an empty output up to date, so it goes first.
  const buildInfo = path.join(root, 'node_modules', '.cache', 'archivectl-build', 'tsconfig.tsbuildinfo');
  if (!existsSync(path.join(root, 'dist', 'cli', 'main.js'))) rmSync(buildInfo, { force: true });
  const args = [tsc, '-p', path.join(root, 'tsconfig.json'), '--incremental', '--tsBuildInfoFile', buildInfo];
  // What is being built, shown where npm shows script output (the checkout's .npmrc).
  console.error('prepare: compiling src/ to dist/ (TypeScript)');
  execFileSync(process.execPath, args, { stdio: 'inherit' });
  console.error('prepare: bundling dist/bundle/, what bin/archivectl runs');
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build-bundle.js')], { stdio: 'inherit' });
  console.error('prepare: writing man/archivectl.1 and the bash and zsh completions in completion/');
  const dist = (file) => import(pathToFileURL(path.join(root, 'dist', 'cli', file)).href);
  const [{ buildProgram, version }, { manPage }, { bashCompletion, zshCompletion }] = await Promise.all([
    dist('main.js'),
    dist('man-page.js'),
    dist('completion.js'),
  ]);
  mkdirSync(path.join(root, 'man'), { recursive: true });
  const today = new Date().toISOString().slice(0, 10);
  writeFileSync(path.join(root, 'man', 'archivectl.1'), manPage(buildProgram(), version(), today));
  mkdirSync(path.join(root, 'completion'), { recursive: true });
  writeFileSync(path.join(root, 'completion', 'archivectl.bash'), bashCompletion(buildProgram()));
  writeFileSync(path.join(root, 'completion', '_archivectl'), zshCompletion(buildProgram()));
} else if (existsSync(path.join(root, 'dist', 'bundle', 'archivectl.cjs'))) {
  console.error('prepare: TypeScript is not installed (a production install); using the dist/bundle/ already built');
} else {
  console.error('prepare: no dist/bundle/ and no TypeScript to build it: run "npm ci" (with dev dependencies) first');
  process.exit(1);
}
