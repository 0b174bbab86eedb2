// Builds what users run once before any test file runs: dist/ from src/ (tsc), then the bundle
// bin/archivectl loads, dist/bundle/ (scripts/build-bundle.js), so that the binary tests spawn
// always matches the source that in-process tests import. The tsc build is incremental: its
// state lives outside dist/ and is dropped when dist/ is missing, since tsc would otherwise trust
// it and emit nothing. Type errors do not stop the tests (tsc still emits; `npx tsc -p . --noEmit`
// and the lint step judge types): they are printed.
import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BUILD_INFO = path.join(ROOT, 'node_modules', '.cache', 'archivectl-build', 'tsconfig.tsbuildinfo');

export default async function buildOnce(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) rmSync(BUILD_INFO, { force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const args = [tsc, '-p', path.join(ROOT, 'tsconfig.json'), '--incremental', '--tsBuildInfoFile', BUILD_INFO];
  try {
    await run(args);
  } catch (err) {
    const { code, stdout = '', stderr = '' } = err as { code?: unknown; stdout?: string; stderr?: string };
    // Exit status 2: diagnostics, outputs written.
    if (code !== 2) throw new Error(`the build of dist/ failed (tsc -p tsconfig.json):\n${stdout}${stderr}`);
    console.warn(`type errors in src/ (dist/ was built anyway):\n${stdout}${stderr}`);
  }
  // The bundle bin/archivectl runs, from src/ as it stands.
  try {
    await run([path.join(ROOT, 'scripts', 'build-bundle.js')]);
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`the build of dist/bundle/ failed (scripts/build-bundle.js):\n${stdout}${stderr}`);
  }
}

function run(args: string[]) {
  return promisify(execFile)(process.execPath, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
}
