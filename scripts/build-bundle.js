#!/usr/bin/env node
// Builds dist/bundle/, what bin/archivectl runs: src/ and its packages bundled by rolldown into
// a few CommonJS files that node loads as it loads any other (require). Runs from
// `npm run build`, npm's prepare and the tests' global setup.
//
// CommonJS rather than ES modules: node's ES module loader holds some 10 MB more for the
// daemon's files than require does (measured on node 20: 71 against 61 MB resident after loading
// them), for the same start-up time. The bundle's own dynamic imports become requires; an
// import() of a computed path (knex importing a migration) stays an import().
//
// Loaded module by module from dist/ and node_modules, a command finds, reads and compiles some
// 500 files (knex and lodash alone are 340); bundled, `--help` reads four and `token list` eight.
// The code is split where runs differ (split() below): --help reads the command tree only,
// token list never reads the HTTP server, serve never reads the other commands. Database
// drivers stay packages of their own (sqlite3 is native).
//
// Without a compile cache (node 20) a run's time goes mostly to parsing what it loads, so the
// bundle is minified, names of functions and classes kept (some packages read them). Each file
// of src/ code has a source map, so that a stack trace names src/*.ts lines; packages' code is
// in files of its own without one: node reads a file's map, and walks its text counting lines,
// as it loads it, which for the packages would cost every run more than all of src/ does.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const bundleDir = path.join(dist, 'bundle');

const DRIVERS = ['sqlite3', 'pg', 'pg-native', 'pg-query-stream', 'mysql', 'mysql2', 'mariadb', 'oracledb', 'tedious'];
// Required at run time where the bundler cannot see it (config/checks.ts loads proxy-addr only
// when a proxy list is configured): left out, with the ipaddr.js it uses, so that this require
// and the daemon's imports share node_modules' one copy instead of a bundled one beside it.
const REQUIRED_LATE = ['proxy-addr', 'ipaddr.js'];
// The knex dialects the product does not offer (config accepts sqlite3 and pg) stay out.
const UNOFFERED_DIALECT = /^\.\/(better-sqlite3|cockroachdb|mssql|mysql2?|mariadb|oracle|oracledb|pgnative|redshift)$/;

// cli-table3's string-width 4 gets node's own ANSI stripping instead of strip-ansi 6
// (scripts/strip-ansi.cjs says why); every other package keeps its own. A build in which it
// found nothing to replace fails, rather than quietly drawing tables at the old speed.
const stripAnsiOfNode = {
  name: 'strip-ansi-of-node',
  replaced: false,
  resolveId(id, importer) {
    const underTable = importer?.includes(path.join('node_modules', 'cli-table3', 'node_modules', 'string-width'));
    if (id !== 'strip-ansi' || !underTable) return null;
    stripAnsiOfNode.replaced = true;
    return path.join(root, 'scripts', 'strip-ansi.cjs');
  },
};

function external(id, importer) {
  if ([...DRIVERS, ...REQUIRED_LATE].some((d) => id === d || id.startsWith(`${d}/`))) return true;
  return Boolean(importer?.endsWith(path.join('knex', 'lib', 'dialects', 'index.js')) && UNOFFERED_DIALECT.test(id));
}

async function generate(codeSplitting) {
  const build = await rolldown({
    input: { archivectl: path.join(src, 'cli', 'main.ts') },
    platform: 'node',
    external,
    plugins: [stripAnsiOfNode],
    // src/ imports its own modules as `./x.js`, as node resolves them once compiled.
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    tsconfig: path.join(root, 'tsconfig.json'),
    logLevel: 'silent',
    cwd: root,
  });
  const { output } = await build.generate({
    dir: bundleDir, // where the maps' paths to src/ start from
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
    minify: { compress: { keepNames: { function: true, class: true } }, mangle: { keepNames: true } },
    // Positions and names only: node maps stack frames with them and needs no copy of the sources.
    sourcemap: true,
    sourcemapExcludeSources: true,
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
 * only the files it needs, and the daemon keeps no other command's code in memory. Each set's
 * packages go to a file of their own, `*-packages.cjs`, which gets no source map.
 */
function split(output) {
  const tree = closure(
    output,
    output.filter((file) => file.type === 'chunk' && file.isEntry),
    false,
  );
  const actions = path.join(src, 'cli', 'actions');
  const commands = output.filter((file) => file.isDynamicEntry && file.facadeModuleId?.startsWith(actions));
  const isServe = (file) => file.facadeModuleId === path.join(actions, 'serve.ts');
  if (!commands.some(isServe)) throw new Error('the bundle has no serve command: is src/cli/actions/serve.ts gone?');
  const daemon = closure(output, commands.filter(isServe), true);
  const others = closure(
    output,
    commands.filter((file) => !isServe(file)),
    true,
  );
  const sets = [
    { name: 'shared', test: (id) => !tree.has(id) && daemon.has(id) && others.has(id) },
    { name: 'daemon', test: (id) => !tree.has(id) && daemon.has(id) && !others.has(id) },
    { name: 'commands', test: (id) => !tree.has(id) && !daemon.has(id) },
  ];
  // The tree's own src/ modules stay where rolldown puts them (archivectl.cjs, main.cjs).
  return [
    { name: `tree${PACKAGES}`, test: (id) => tree.has(id) && isPackage(id) },
    ...sets.map((set) => ({ name: `${set.name}${PACKAGES}`, test: (id) => set.test(id) && isPackage(id) })),
    ...sets,
  ];
}

const PACKAGES = '-packages';
const isPackage = (id) => id.split(path.sep).includes('node_modules');

/** A file as written: packages' files without their source map, and without the comment naming it. */
function written(file) {
  if (file.type === 'asset') return file.fileName.endsWith(`${PACKAGES}.cjs.map`) ? null : file.source;
  return file.name.endsWith(PACKAGES) ? file.code.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n') : file.code;
}

/**
 * A bundled module finds files beside it through `import.meta.url`, which in the bundle is the
 * bundle file's own URL. That still names the right place only for a module as deep below src/
 * as dist/bundle/ is below the package (`../../package.json` from src/cli/ and dist/bundle/
 * alike), so the build refuses any other.
 */
function checkDepths(output) {
  for (const id of new Set(output.flatMap((file) => file.moduleIds ?? []))) {
    const below = path.relative(src, id).split(path.sep);
    if (below[0] === '..' || below.length === 2) continue;
    if (readFileSync(id, 'utf8').includes('import.meta.url')) {
      throw new Error(`${id} finds files through import.meta.url but is not two levels below src/`);
    }
  }
}

// First as rolldown splits by itself, to learn which command loads what; then by split().
const groups = split(await generate(true));
const output = await generate({ includeDependenciesRecursively: false, groups });
checkDepths(output);
if (!stripAnsiOfNode.replaced)
  throw new Error("cli-table3's string-width no longer requires strip-ansi: see scripts/strip-ansi.cjs");
// Leftovers of a build that was stopped half-way, then this one's, written beside the bundle.
mkdirSync(dist, { recursive: true });
for (const name of readdirSync(dist))
  if (/^bundle\.\d+\.(partial|old)$/.test(name)) rmSync(path.join(dist, name), { recursive: true });
const next = `${bundleDir}.${process.pid}.partial`;
mkdirSync(next, { recursive: true });
for (const file of output) {
  const content = written(file);
  if (content !== null) writeFileSync(path.join(next, file.fileName), content);
}
// Swapped in with two renames: there is no bundle only between them. A command already running
// keeps the files it has loaded; one file it loads later may then come from the new build, so
// do not build under running commands (a daemon loads all of its files at start).
const old = `${bundleDir}.${process.pid}.old`;
if (existsSync(bundleDir)) renameSync(bundleDir, old);
renameSync(next, bundleDir);
rmSync(old, { recursive: true, force: true });
