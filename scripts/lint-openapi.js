// `npm run lint` (part): the served description (src/http/openapi/) written to a temporary file
// and linted by Redocly (recommended rules) and Spectral (its `oas` ruleset); both must report no
// error, and the warnings left are the ones .redocly.yaml and .spectral.yaml disable with reasons.
// Then Spectral's OWASP ruleset (.spectral-owasp.yaml, each rule turned off or narrowed with its
// reason): no error; its warnings (e.g. no 500 described) are not shown.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('../', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'archivectl-openapi-'));
try {
  // The generator is TypeScript: bundled on its own, as the daemon bundles it.
  await build({
    cwd: root,
    input: { document: 'src/http/openapi/document.ts', routes: 'src/http/routes/index.ts' },
    platform: 'node',
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    external: [/^(sqlite3|pg-native|pg-query-stream)(\/|$)/],
    logLevel: 'warn',
    output: { dir: path.join(root, 'dist', 'openapi'), format: 'esm', entryFileNames: '[name].mjs', cleanDir: true },
  });
  const load = (name) => import(pathToFileURL(path.join(root, 'dist', 'openapi', `${name}.mjs`)).href);
  const { servedDocument } = await load('document');
  const { ROUTES } = await load('routes');
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(JSON.parse(servedDocument(ROUTES).json), null, 2));
  const bin = (name) => path.join(root, 'node_modules', '.bin', name);
  const run = (cmd, args) => execFileSync(bin(cmd), args, { cwd: root, stdio: 'inherit' });
  run('redocly', ['lint', '--config', path.join(root, '.redocly.yaml'), '--format', 'stylish', file]);
  run('spectral', ['lint', '--ruleset', path.join(root, '.spectral.yaml'), '--fail-severity', 'warn', file]);
  const owasp = ['--ruleset', path.join(root, '.spectral-owasp.yaml'), '--fail-severity', 'error', '-D'];
  run('spectral', ['lint', ...owasp, file]);
} catch (err) {
  process.exitCode = 1;
  if (err.status === undefined) console.error(err);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
