#!/usr/bin/env node
// Builds dist/bundle/ from dist/ (run after tsc): the program bundled into a few CommonJS files,
// each with the V8 code cache bin/archivectl compiles it from (why and how: src/load-bundle.ts).
// Runs from `npm run build`, npm's prepare and the tests' global setup.
//
// The code is split where runs differ (split() below): --help reads the command tree only,
// token list never reads the HTTP server, serve never reads the other commands. Database
// drivers stay packages of their own (sqlite3 is native), and so does db/import-file.cjs,
// which node must load itself.
//
// A cache holds the functions compiled when it is taken. So the CLI's own commands run first,
// in this process, on a scratch database: `--help`, `token list` and `account list`, the runs an
// operator waits for. A cache taken right after loading would hold little more than the files'
// top levels.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const bundleDir = path.join(dist, 'bundle');
const importFile = path.join(dist, 'db', 'import-file.cjs');

const DRIVERS = ['sqlite3', 'pg', 'pg-native', 'pg-query-stream', 'mysql', 'mysql2', 'mariadb', 'oracledb', 'tedious'];
// Required at run time where the bundler cannot see it (config/checks.ts loads proxy-addr only
// when a proxy list is configured): left out, with the ipaddr.js it uses, so that this require
// and the daemon's imports share node_modules' one copy instead of a bundled one beside it.
const REQUIRED_LATE = ['proxy-addr', 'ipaddr.js'];
// The knex dialects the product does not offer (config accepts sqlite3 and pg) stay out.
const UNOFFERED_DIALECT = /^\.\/(better-sqlite3|cockroachdb|mssql|mysql2?|mariadb|oracle|oracledb|pgnative|redshift)$/;

function external(id, importer) {
  if ([...DRIVERS, ...REQUIRED_LATE].some((d) => id === d || id.startsWith(`${d}/`))) return true;
  if (importer && path.resolve(path.dirname(importer), id) === importFile) return true;
  return Boolean(importer?.endsWith(path.join('knex', 'lib', 'dialects', 'index.js')) && UNOFFERED_DIALECT.test(id));
}

async function generate(codeSplitting) {
  const build = await rolldown({
    input: { archivectl: path.join(dist, 'cli', 'main.js') },
    platform: 'node',
    external,
    logLevel: 'silent',
    cwd: root,
  });
  const { output } = await build.generate({
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: '[name].cjs',
    // Each module runs when first imported, as it would unbundled: a command that never
    // imports the daemon never runs the daemon's modules.
    strictExecutionOrder: true,
    // V8 holds a file's source for as long as it runs, one byte a character only when all of
    // it is ASCII: the daemon keeps its files' source in memory.
    charset: 'ascii',
    comments: false,
    // import() of a package becomes a require (src/load-bundle.ts: the bundle has no loader for import()).
    dynamicImportInCjs: false,
    codeSplitting,
  });
  await build.close();
  return output;
}

/** The modules of `files` and of every file they load, statically or (with `dynamic`) when they run. */
function closure(output, files, dynamic) {
  const byName = new Map(output.map((file) => [file.fileName, file]));
  const modules = new Set();
  const seen = new Set();
  const todo = [...files];
  while (todo.length > 0) {
    const file = todo.pop();
    if (seen.has(file.fileName)) continue;
    seen.add(file.fileName);
    for (const id of file.moduleIds) modules.add(id);
    for (const name of dynamic ? [...file.imports, ...file.dynamicImports] : file.imports) {
      if (byName.has(name)) todo.push(byName.get(name));
    }
  }
  return modules;
}

/**
 * The files of the bundle, as module sets: the command tree (every run loads it); what `serve`
 * loads and no other command does (the HTTP server); what the other commands load and serve
 * does not; and what both load (the domain, the database, knex, the configuration). A run reads
 * only the files it needs, and the daemon keeps no other command's code in memory.
 */
function split(output) {
  const tree = closure(
    output,
    output.filter((file) => file.isEntry),
    false,
  );
  const commands = output.filter(
    (file) => file.isDynamicEntry && file.facadeModuleId?.includes(path.join('cli', 'actions')),
  );
  const isServe = (file) => file.facadeModuleId === path.join(dist, 'cli', 'actions', 'serve.js');
  if (!commands.some(isServe)) throw new Error('the bundle has no serve command: is dist/cli/actions/serve.js gone?');
  const daemon = closure(output, commands.filter(isServe), true);
  const others = closure(
    output,
    commands.filter((file) => !isServe(file)),
    true,
  );
  const outside = (id) => !tree.has(id);
  return [
    { name: 'shared', test: (id) => outside(id) && daemon.has(id) && others.has(id) },
    { name: 'daemon', test: (id) => outside(id) && daemon.has(id) && !others.has(id) },
    { name: 'commands', test: (id) => outside(id) && !daemon.has(id) },
  ];
}

/**
 * A bundled module finds files beside it through `import.meta.url`, which in the bundle is the
 * bundle file's own URL. That still names the right place only for a module as deep below
 * dist/ as dist/bundle/ itself (`../../package.json` from dist/cli/ and dist/bundle/ alike), so
 * the build refuses any other.
 */
function checkDepths(output) {
  for (const id of new Set(output.flatMap((file) => file.moduleIds))) {
    const below = path.relative(dist, id).split(path.sep);
    if (below[0] === '..' || below.length === 2) continue;
    if (readFileSync(id, 'utf8').includes('import.meta.url')) {
      throw new Error(
        `${id} finds files through import.meta.url but is not two levels below dist/, as dist/bundle/ is`,
      );
    }
  }
}

async function bundle() {
  // First as rolldown splits by itself, to learn which command loads what; then by split().
  const groups = split(await generate(true));
  const output = await generate({ includeDependenciesRecursively: false, groups });
  checkDepths(output);
  // Leftovers of a build that was stopped half-way, then this one's, written beside the bundle.
  for (const name of readdirSync(dist))
    if (/^bundle\.\d+\.(partial|old)$/.test(name)) rmSync(path.join(dist, name), { recursive: true });
  const next = `${bundleDir}.${process.pid}.partial`;
  mkdirSync(next, { recursive: true });
  for (const file of output) writeFileSync(path.join(next, file.fileName), file.code ?? file.source);
  // Swapped in with two renames: there is no bundle only between them. A command already
  // running keeps the files it has loaded; one file it loads later may then come from the new
  // build, so do not build under running commands (a daemon loads all of its files at start).
  const old = `${bundleDir}.${process.pid}.old`;
  if (existsSync(bundleDir)) renameSync(bundleDir, old);
  renameSync(next, bundleDir);
  rmSync(old, { recursive: true, force: true });
}

/** Runs the CLI's commands from the bundle, in this process, output discarded; throws when one fails. */
async function train() {
  const scratch = mkdtempSync(path.join(tmpdir(), 'archivectl-build-'));
  try {
    const config = path.join(scratch, 'config.json');
    const database = { client: 'sqlite3', filename: path.join(scratch, 'archive.sqlite3') };
    writeFileSync(config, JSON.stringify({ database, dataDir: scratch }));
    const env = { PATH: process.env.PATH ?? '' };
    // The schema, made by another process: migrating here would fill the caches with migrations.
    execFileSync(process.execPath, [path.join(root, 'bin', 'archivectl'), '--config', config, 'migrate'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'], // a failure's error carries what migrate said
    });
    const { loadBundle } = await import(pathToFileURL(path.join(dist, 'load-bundle.js')).href);
    const program = loadBundle(bundleDir);
    const sink = () => new Writable({ write: (_chunk, _enc, done) => done() });
    for (const args of [['--help'], ['token', 'list'], ['account', 'list']]) {
      const io = { stdout: sink(), stderr: sink(), env, cwd: scratch };
      const status = await program.exports.main(['node', 'archivectl', '--config', config, ...args], io);
      if (status !== 0) throw new Error(`archivectl ${args.join(' ')} exited with ${status}`);
    }
    return program.files;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await bundle();
for (const [file, loaded] of await train()) {
  const partial = `${file}.cache.${process.pid}.partial`;
  writeFileSync(partial, loaded.codeCache());
  renameSync(partial, `${file}.cache`);
}
