#!/usr/bin/env node
// npm's "prepare": builds dist/bundle/, what bin/archivectl runs, when the build's tools are
// installed (a checkout, `npm ci`): `npm run build` (rolldown.config.js), then writes the manual
// page man/archivectl.1 and the shell completions completion/archivectl.bash and
// completion/_archivectl (zsh) from the command tree of the bundle just built; the package ships
// all three (the production install puts them where man, bash and zsh look: docs/operations.md).
// A production install (`npm ci --omit=dev` on a built tree, or a packed tarball) has no
// rolldown: it uses the bundle already there, and only fails when there is none to use.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
let rolldown;
try {
  rolldown = require.resolve('rolldown');
} catch {
  rolldown = null;
}
if (rolldown) {
  // What `npm run build` (`rolldown -c`) does, without an npm of its own. What is being built is
  // shown where npm shows script output (the checkout's .npmrc).
  console.error('prepare: bundling src/ into dist/bundle/, what bin/archivectl runs (rolldown)');
  const [{ build }, { default: config }] = await Promise.all([
    import(pathToFileURL(rolldown).href),
    import(pathToFileURL(path.join(root, 'rolldown.config.js')).href),
  ]);
  // In turn, as `rolldown -c` builds them: the first output empties dist/bundle/.
  for (const output of config) await build({ ...output, cwd: root });
  console.error('prepare: writing man/archivectl.1 and the bash and zsh completions in completion/');
  const bundle = (file) => require(path.join(root, 'dist', 'bundle', file));
  const [{ buildProgram, version }, { manPage }] = [bundle('archivectl.cjs'), bundle('man-page.cjs')];
  // The completions as the built command prints them (`archivectl completion bash|zsh`).
  const completion = (shell) =>
    execFileSync(process.execPath, [path.join(root, 'bin', 'archivectl'), 'completion', shell], {
      cwd: root,
      encoding: 'utf8',
    });
  mkdirSync(path.join(root, 'man'), { recursive: true });
  const today = new Date().toISOString().slice(0, 10);
  writeFileSync(path.join(root, 'man', 'archivectl.1'), manPage(buildProgram(), version(), today));
  mkdirSync(path.join(root, 'completion'), { recursive: true });
  writeFileSync(path.join(root, 'completion', 'archivectl.bash'), completion('bash'));
  writeFileSync(path.join(root, 'completion', '_archivectl'), completion('zsh'));
} else if (existsSync(path.join(root, 'dist', 'bundle', 'archivectl.cjs'))) {
  console.error('prepare: rolldown is not installed (a production install); using the dist/bundle/ already built');
} else {
  console.error('prepare: no dist/bundle/ and no rolldown to build it: run "npm ci" (with dev dependencies) first');
  process.exit(1);
}
