// The node_modules a release tree ships: only the packages node loads at run time. The bundle
// holds the code of every other production dependency, so their files would only be unpacked
// and never read; each file is a cost of dpkg's install, upgrade and removal (it writes, syncs
// and lists every one). What the bundle leaves to node (rolldown.config.js's externals, a
// createRequire()) is found by reading the bundle, bin/ and migrations/ for module names that
// are installed; what those require in turn comes from their package.json. Licences of every
// production dependency, bundled or not, are gathered into one file of the tree first.
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';

// Dependencies used only to build or fetch a package's native addon when npm installs it, never
// by the installed addon: the release carries the addon already built (scripts/release.js).
const INSTALL_ONLY = new Set(['node-addon-api', 'node-gyp', 'prebuild-install', 'tar']);

// Module names as the bundle leaves them to node: `require("x")`, `import(\`x\`)`, and
// `createRequire(…)(\`x\`)` (src/config/checks.ts); in migrations, as written (comments left out)
const BUNDLED_SPECIFIER =
  /(?:\b(?:require|import)|\bcreateRequire\)?\((?:[^()]|\([^()]*\))*\))\((["`])([^"`\s./$][^"`\s]*)\1\)/g;
const SOURCE_SPECIFIER = /(?:\b(?:require|import)\(|\bfrom\s+)(["'`])([^"'`\s./$][^"'`\s]*)\1/g;
const COMMENT = /\/\*[^]*?\*\/|(?<![:"'`\\])\/\/.*$/gm;

/** The package a module specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function filesUnder(dir, test) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Where node finds package `name` from a file in `dir`: the nearest node_modules up to the tree's. */
function resolvePackage(tree, dir, name) {
  for (let at = dir; at.startsWith(tree); at = path.dirname(at)) {
    const candidate = path.join(at, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (at === tree) break;
  }
  return null;
}

/** Every installed package of the tree (node_modules/**\/package.json of a package directory). */
function installedPackages(modules) {
  const found = [];
  const visit = (dir) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const at = path.join(dir, entry.name);
      if (entry.name.startsWith('@')) visit(at);
      else if (fs.existsSync(path.join(at, 'package.json'))) {
        found.push(at);
        visit(path.join(at, 'node_modules'));
      }
    }
  };
  visit(modules);
  return found;
}

const LICENSE_FILE = /^(licen[cs]e|copying|notice)(\.|-|$)/i;

/** One text of every package's name, version, licence and licence files (sorted, deduplicated). */
function licenses(packages) {
  const seen = new Set();
  const parts = [];
  for (const dir of packages) {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const id = `${pkg.name}@${pkg.version}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const texts = fs
      .readdirSync(dir)
      .filter((f) => LICENSE_FILE.test(f) && fs.statSync(path.join(dir, f)).isFile())
      .sort()
      .map((f) => fs.readFileSync(path.join(dir, f), 'utf8').trim());
    const license = typeof pkg.license === 'string' ? pkg.license : JSON.stringify(pkg.license ?? pkg.licenses);
    parts.push([`${id}: ${license}`, ...texts].join('\n\n'));
  }
  return parts.sort().join(`\n\n${'-'.repeat(78)}\n\n`) + '\n';
}

/**
 * Leaves in tree/node_modules only the packages loaded at run time and, of those, the files a
 * run reads; writes tree/THIRD_PARTY_LICENSES first. Returns the packages kept (relative paths).
 */
export function pruneModules(tree) {
  const modules = path.join(tree, 'node_modules');
  const all = installedPackages(modules);
  fs.writeFileSync(
    path.join(tree, 'THIRD_PARTY_LICENSES'),
    'The licences of the production dependencies: those in node_modules/ and those whose code\n' +
      'dist/bundle/ holds.\n\n' +
      licenses(all),
  );

  const script = (f) => /\.c?js$/.test(f);
  const sources = [
    ...[...filesUnder(path.join(tree, 'dist', 'bundle'), script), ...filesUnder(path.join(tree, 'bin'), script)].map(
      (file) => ({ file, pattern: BUNDLED_SPECIFIER, text: fs.readFileSync(file, 'utf8') }),
    ),
    ...filesUnder(path.join(tree, 'migrations'), script).map((file) => ({
      file,
      pattern: SOURCE_SPECIFIER,
      text: fs.readFileSync(file, 'utf8').replace(COMMENT, ''),
    })),
  ];
  const keep = new Set();
  const queue = [];
  const want = (fromDir, name) => {
    const dir = resolvePackage(tree, fromDir, name);
    if (dir && !keep.has(dir)) {
      keep.add(dir);
      queue.push(dir);
    }
  };
  for (const { file, pattern, text } of sources) {
    for (const [, , specifier] of text.matchAll(pattern)) {
      // node's own modules come first, even where node_modules holds a package of that name
      if (!isBuiltin(specifier)) want(path.dirname(file), packageName(specifier));
    }
  }
  while (queue.length > 0) {
    const dir = queue.shift();
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
      if (!INSTALL_ONLY.has(name)) want(dir, name);
    }
  }

  // Everything else goes; a kept package nested in a dropped one keeps its path's directories.
  const kept = [...keep].map((dir) => path.relative(modules, dir));
  for (const dir of all) {
    if (keep.has(dir) || !fs.existsSync(dir)) continue;
    if (![...keep].some((k) => k.startsWith(`${dir}${path.sep}`))) fs.rmSync(dir, { recursive: true, force: true });
    else
      for (const f of fs.readdirSync(dir)) if (f !== 'node_modules') fs.rmSync(path.join(dir, f), { recursive: true });
  }
  for (const entry of fs.readdirSync(modules)) {
    const at = path.join(modules, entry);
    if (entry.startsWith('@') && fs.readdirSync(at).length === 0) fs.rmdirSync(at);
    else if (entry.startsWith('.')) fs.rmSync(at, { recursive: true, force: true });
  }
  for (const dir of keep) pruneFiles(dir);
  return kept.sort();
}

// Read by no run: their repositories' dotfiles, documentation, type declarations, source maps, TypeScript and C/C++ sources, a
// native addon's build inputs and intermediate files (its .node binary in build/Release stays).
const UNREAD_FILE = /(\.md|\.markdown|\.[cm]?ts|\.map|\.gyp|\.gypi|\.cc|\.c|\.h|\.hpp|\.tar\.gz|\.tgz)$/i;
const UNREAD_DIR = new Set([
  'test',
  'tests',
  '__tests__',
  'docs',
  'doc',
  'example',
  'examples',
  'benchmark',
  '.github',
]);

function pruneFiles(dir) {
  const native = fs.existsSync(path.join(dir, 'binding.gyp'));
  const walk = (at, depth) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) {
        if (depth === 0 && entry.name === 'node_modules') continue;
        if (UNREAD_DIR.has(entry.name) || (native && depth === 0 && ['deps', 'src'].includes(entry.name))) {
          fs.rmSync(full, { recursive: true, force: true });
        } else if (native && depth === 0 && entry.name === 'build') {
          for (const f of fs.readdirSync(full)) if (f !== 'Release') fs.rmSync(path.join(full, f), { recursive: true });
          for (const f of fs.readdirSync(path.join(full, 'Release')))
            if (!f.endsWith('.node')) fs.rmSync(path.join(full, 'Release', f), { recursive: true });
        } else {
          walk(full, depth + 1);
        }
      } else if (entry.name.startsWith('.') || (UNREAD_FILE.test(entry.name) && !LICENSE_FILE.test(entry.name))) {
        fs.rmSync(full);
      }
    }
  };
  walk(dir, 0);
}
