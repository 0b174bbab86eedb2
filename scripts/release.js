#!/usr/bin/env node
// `npm run release`: a release a server installs without npm, a compiler or a Node.js of its own.
//
//   dist/release/archivectl-<version>-linux-<arch>/         the self-contained tree
//   dist/release/archivectl-<version>-linux-<arch>.tar.gz   the same, for /opt/archivectl/<version>
//   dist/release/archivectl_<version>_<debian arch>.deb     the same, as a Debian package
//
// The tree holds the bundle, bin/, the migrations, the production dependencies that run outside
// the bundle (`npm ci --omit=dev` pruned by release/runtime-modules.js, their licences and the
// bundled ones' in THIRD_PARTY_LICENSES; no install scripts: sqlite3's native binary is the one already built in this
// checkout's node_modules, or kept in the CI cache), a Node.js runtime of a supported line (the npm
// registry's node-linux-<arch> package, kept in the CI cache), the systemd units with a drop-in
// that runs them from /opt/archivectl/current, the manual page, completions and config example.
// Installing either artifact: docs/deployment.md; what the package's scripts do: scripts/release/.
//
// Options: --source DIR (the checkout to release; default this one; a checkout of an older
// commit is built with this checkout's node_modules), --version V (default package.json's),
// --out DIR (default dist/release), --node-line N (default 22), --no-build (use the bundle, man
// page and completions already in the source), --no-deb, --no-tarball.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { pruneModules } from './release/runtime-modules.js';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opt } = parseArgs({
  options: {
    source: { type: 'string', default: here },
    version: { type: 'string' },
    out: { type: 'string', default: path.join(here, 'dist', 'release') },
    'node-line': { type: 'string', default: '22' },
    'no-build': { type: 'boolean', default: false },
    'no-deb': { type: 'boolean', default: false },
    'no-tarball': { type: 'boolean', default: false },
  },
});
const source = path.resolve(opt.source);
const out = path.resolve(opt.out);
const pkg = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'));
const version = opt.version ?? pkg.version;
if (!/^[0-9][A-Za-z0-9.+~]*$/.test(version)) fail(`version "${version}" is not a Debian upstream version`);
const arch = process.arch;
const debArch = { x64: 'amd64', arm64: 'arm64' }[arch] ?? fail(`no Debian architecture for ${arch}`);
const name = `archivectl-${version}-linux-${arch}`;
const cache = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'archivectl-ci');
const PREFIX = '/opt/archivectl';

/** @returns {never} */
function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}
function run(cmd, args, options = {}) {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', ...options });
}
function step(message) {
  console.error(`release: ${message}`);
}

// --- the tree ---------------------------------------------------------------------------------

function build() {
  // The bundle, man page and completions, as npm's prepare makes them (scripts/prepare.js); an
  // older checkout without node_modules borrows this checkout's build tools.
  const modules = path.join(source, 'node_modules');
  let borrowed = false;
  if (!fs.existsSync(modules)) {
    fs.symlinkSync(path.join(here, 'node_modules'), modules);
    borrowed = true;
  }
  try {
    step(`building ${source === here ? 'this checkout' : source}`);
    if (fs.existsSync(path.join(source, 'scripts', 'prepare.js'))) {
      run(process.execPath, ['scripts/prepare.js'], { cwd: source, stdio: 'inherit' });
    } else {
      run(process.execPath, [path.join(here, 'node_modules', 'rolldown', 'bin', 'cli.mjs'), '-c'], {
        cwd: source,
        stdio: 'inherit',
      });
    }
  } finally {
    if (borrowed) fs.unlinkSync(modules);
  }
}

/** The newest node of the line kept in the cache, fetched from the npm registry when newer. */
function nodeRuntime(line) {
  const dir = path.join(cache, 'node');
  fs.mkdirSync(dir, { recursive: true });
  const byVersion = (a, b) => {
    const [x, y] = [a, b].map((v) => v.split('.').map(Number));
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  };
  let wanted = null;
  try {
    const listed = [].concat(JSON.parse(run('npm', ['view', `node-linux-${arch}@${line}`, 'version', '--json'])));
    wanted = listed.sort(byVersion).at(-1) ?? null;
  } catch {
    step(`npm registry not reached: Node.js ${line} from the cache`);
  }
  wanted ??= fs
    .readdirSync(dir)
    .filter((v) => v.startsWith(`${line}.`))
    .sort(byVersion)
    .at(-1);
  if (!wanted) fail(`no Node.js ${line}: not in the npm registry's node-linux-${arch} nor in ${dir}`);
  const binary = path.join(dir, wanted, 'bin', 'node');
  if (!fs.existsSync(binary)) {
    step(`fetching node-linux-${arch}@${wanted}`);
    const part = path.join(dir, `.part-${wanted}`);
    fs.rmSync(part, { recursive: true, force: true });
    fs.mkdirSync(part, { recursive: true });
    const tgz = run('npm', ['pack', `node-linux-${arch}@${wanted}`, '--silent'], { cwd: part }).trim();
    run('tar', ['-xzf', tgz, '--strip-components=1', 'package/bin/node'], { cwd: part });
    fs.rmSync(path.join(part, tgz));
    fs.renameSync(part, path.join(dir, wanted));
  }
  return binary;
}

/** sqlite3's native binary, built for this machine: this checkout's build, or the CI cache's. */
function sqliteBinary(tree) {
  const target = path.join(tree, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const built = path.join(here, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
  if (fs.existsSync(built)) return fs.copyFileSync(built, target);
  const prebuilds = path.join(cache, 'prebuilds');
  const kept = fs.existsSync(prebuilds)
    ? fs.readdirSync(prebuilds).find((f) => f.startsWith('sqlite3-') && f.endsWith(`-linux-${arch}.tar.gz`))
    : undefined;
  if (!kept) fail(`no sqlite3 binary: run npm ci here first (or keep one in ${prebuilds})`);
  run('tar', ['-xzf', path.join(prebuilds, kept), '-C', path.join(tree, 'node_modules', 'sqlite3')]);
}

function copy(from, to) {
  if (fs.existsSync(from)) fs.cpSync(from, to, { recursive: true, dereference: true });
}

function assembleTree(tree) {
  fs.rmSync(tree, { recursive: true, force: true });
  fs.mkdirSync(tree, { recursive: true });
  for (const entry of [
    'package.json',
    'package-lock.json',
    'bin',
    'dist/bundle',
    'migrations',
    'man',
    'completion',
    'systemd',
    'docs',
    'config.example.json',
    'README.md',
    'CHANGELOG.md',
  ]) {
    copy(path.join(source, entry), path.join(tree, entry));
  }
  if (!fs.existsSync(path.join(tree, 'dist', 'bundle', 'archivectl.cjs')))
    fail('no dist/bundle/archivectl.cjs to ship');
  step('production dependencies (npm ci --omit=dev, no install scripts)');
  run(
    'npm',
    ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    {
      cwd: tree,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  fs.rmSync(path.join(tree, 'package-lock.json'));
  sqliteBinary(tree);
  const kept = pruneModules(tree);
  step(`node_modules: what runs outside the bundle, ${kept.join(', ')}`);
  // Modules are loaded, never run as programs: no executable bits (a native addon is dlopen()ed),
  // and none of the packaging leftovers of their own repositories.
  run('find', [
    path.join(tree, 'node_modules'),
    '-type',
    'f',
    '(',
    '-name',
    '.eslintrc*',
    '-o',
    '-name',
    '.npmignore',
    '-o',
    '-name',
    '.gitattributes',
    ')',
    '-delete',
  ]);
  run('chmod', ['-R', 'a-x+X', path.join(tree, 'node_modules')]);

  const node = nodeRuntime(opt['node-line']);
  fs.mkdirSync(path.join(tree, 'node', 'bin'), { recursive: true });
  fs.copyFileSync(node, path.join(tree, 'node', 'bin', 'node'));
  fs.chmodSync(path.join(tree, 'node', 'bin', 'node'), 0o755);

  // bin/archivectl runs the program with the node beside it, wherever the tree is and however it
  // is reached (a /usr/bin link, the current link): no node on PATH is needed or used.
  // (not a program itself: no #! line, not executable)
  const program = fs.readFileSync(path.join(tree, 'bin', 'archivectl'), 'utf8').replace(/^#!.*\n/, '');
  fs.writeFileSync(path.join(tree, 'bin', 'archivectl.cjs'), program, { mode: 0o644 });
  fs.writeFileSync(
    path.join(tree, 'bin', 'archivectl'),
    [
      '#!/bin/sh',
      "# archivectl from a release tree: runs bin/archivectl.cjs with the release's own Node.js",
      'here=$(dirname "$(readlink -f "$0")")',
      'exec "$here/../node/bin/node" "$here/archivectl.cjs" "$@"',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );

  // The units run the release through /opt/archivectl/current: a drop-in, so the unit files stay
  // the ones in systemd/ (the same flags as the unit's ExecStart=, with the release's node).
  const dropIn = path.join(tree, 'systemd', 'archivectl.service.d');
  fs.mkdirSync(dropIn, { recursive: true });
  const execStart = fs
    .readFileSync(path.join(tree, 'systemd', 'archivectl.service'), 'utf8')
    .match(/^ExecStart=(\S+)((?: --\S+)*) \S+\/bin\/archivectl (.*)$/m);
  if (!execStart) fail('systemd/archivectl.service: no ExecStart=<node> [flags] <prefix>/bin/archivectl … to adapt');
  fs.writeFileSync(
    path.join(dropIn, 'release.conf'),
    [
      '# The release under /opt/archivectl/current, run by its own Node.js (scripts/release.js)',
      '[Service]',
      'ExecStart=',
      `ExecStart=${PREFIX}/current/node/bin/node${execStart[2]} ${PREFIX}/current/bin/archivectl.cjs ${execStart[3]}`,
      '',
    ].join('\n'),
  );
  run('chmod', ['-R', 'u+rwX,go+rX,go-w', tree]);

  // It runs with its own node, with nothing on PATH but the two tools bin/archivectl uses.
  const tools = fs.mkdtempSync(path.join(os.tmpdir(), 'archivectl-release-'));
  for (const tool of ['readlink', 'dirname'])
    fs.symlinkSync(run('sh', ['-c', `command -v ${tool}`]).trim(), path.join(tools, tool));
  let reported;
  try {
    const env = { PATH: tools, HOME: tools };
    reported = run(path.join(tree, 'bin', 'archivectl'), ['--version'], { env });
    // What node_modules must still hold (runtime-modules.js): the SQLite driver, loaded by the
    // migrations, and proxy-addr, loaded by a configuration that names proxies
    fs.writeFileSync(
      path.join(tools, 'config.json'),
      JSON.stringify({
        database: { filename: './archive.sqlite3' },
        dataDir: './data',
        trustProxy: ['loopback'],
        publicUrl: 'https://archive.example.org',
      }),
    );
    for (const command of ['migrate', 'doctor'])
      run(path.join(tree, 'bin', 'archivectl'), [command], {
        env: { ...env, ARCHIVE_CONFIG: path.join(tools, 'config.json') },
        cwd: tools,
      });
  } finally {
    fs.rmSync(tools, { recursive: true });
  }
  step(`tree ${tree}: ${reported.trim().split('\n')[0]}; migrate and doctor ran`);
}

// --- the tarball ----------------------------------------------------------------------------

function tarball() {
  const file = path.join(out, `${name}.tar.gz`);
  step(`tarball ${file}`);
  run('tar', ['--owner=0', '--group=0', '--numeric-owner', '--sort=name', '-czf', `${file}.part`, '-C', out, name]);
  fs.renameSync(`${file}.part`, file);
}

// --- the Debian package ---------------------------------------------------------------------

function debianPackage(tree) {
  const staging = path.join(out, `.deb-${name}`);
  fs.rmSync(staging, { recursive: true, force: true });
  const at = (...p) => path.join(staging, ...p);
  const write = (file, text, mode = 0o644) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { mode });
    fs.chmodSync(file, mode);
  };
  fs.mkdirSync(at('opt', 'archivectl'), { recursive: true });
  run('cp', ['-al', tree, at('opt', 'archivectl', version)]);
  fs.symlinkSync(version, at('opt', 'archivectl', 'current'));
  fs.mkdirSync(at('usr', 'bin'), { recursive: true });
  fs.symlinkSync(`${PREFIX}/current/bin/archivectl`, at('usr', 'bin', 'archivectl'));
  // Every unit in systemd/ (and the drop-in), installed, neither enabled nor started.
  fs.cpSync(path.join(tree, 'systemd'), at('lib', 'systemd', 'system'), { recursive: true });
  write(
    at('etc', 'archivectl', 'config.json'),
    '{ "database": { "filename": "/var/lib/archivectl/archive.sqlite3" },\n  "dataDir": "/var/lib/archivectl/data" }\n',
  );
  const man = path.join(tree, 'man', 'archivectl.1');
  if (fs.existsSync(man)) {
    write(at('usr', 'share', 'man', 'man1', 'archivectl.1.gz'), gzipSync(fs.readFileSync(man), { level: 9 }));
  }
  const completion = (file, ...to) => {
    const from = path.join(tree, 'completion', file);
    if (fs.existsSync(from)) write(at(...to), fs.readFileSync(from));
  };
  completion('archivectl.bash', 'usr', 'share', 'bash-completion', 'completions', 'archivectl');
  completion('_archivectl', 'usr', 'share', 'zsh', 'vendor-completions', '_archivectl');

  const doc = at('usr', 'share', 'doc', 'archivectl');
  write(path.join(doc, 'copyright'), copyright());
  write(path.join(doc, 'changelog.gz'), gzipSync(debianChangelog(), { level: 9 }));
  const templates = path.join(here, 'scripts', 'release');
  write(
    at('usr', 'share', 'lintian', 'overrides', 'archivectl'),
    fs.readFileSync(path.join(templates, 'lintian-overrides'), 'utf8'),
  );

  const control = at('DEBIAN');
  for (const script of ['preinst', 'postinst', 'prerm', 'postrm']) {
    const text = fs.readFileSync(path.join(templates, script), 'utf8').replaceAll('@VERSION@', version);
    write(path.join(control, script), text, 0o755);
  }
  write(path.join(control, 'conffiles'), '/etc/archivectl/config.json\n');
  const installedKb = Math.ceil(Number(run('du', ['-sk', '--apparent-size', staging]).split('\t')[0]));
  write(
    path.join(control, 'control'),
    [
      'Package: archivectl',
      `Version: ${version}`,
      `Architecture: ${debArch}`,
      'Maintainer: archivectl maintainers <archivectl@example.org>',
      `Installed-Size: ${installedKb}`,
      // The bundled node needs the C and C++ runtimes; useradd (passwd) makes the service's user
      'Depends: libc6 (>= 2.28), libstdc++6, libgcc-s1, passwd',
      'Section: admin',
      'Priority: optional',
      `Description: ${pkg.description.replace(/, and .*/, '')}`,
      ' The archivectl daemon and the admin CLI that runs it, with the Node.js',
      ' runtime it runs on. Files live in /opt/archivectl/<version>, so an upgrade',
      ' unpacks beside the running release; /opt/archivectl/current names the',
      ' installed one. The systemd units are installed, neither enabled nor started.',
      '',
    ].join('\n'),
  );
  write(path.join(control, 'md5sums'), md5sums(staging));
  const file = path.join(out, `archivectl_${version}_${debArch}.deb`);
  step(`Debian package ${file}`);
  // gzip: zstd unpacks faster (bench/RESULTS.md), but lintian holds a zstd member an error
  // (malformed-deb-archive) and dpkg before 1.21.18 cannot read it
  run('dpkg-deb', ['--root-owner-group', '-Zgzip', '--build', staging, `${file}.part`], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  fs.renameSync(`${file}.part`, file);
  fs.rmSync(staging, { recursive: true, force: true });
}

function md5sums(staging) {
  const lines = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(staging, full);
      if (rel === 'DEBIAN' || rel.startsWith('etc/')) continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) lines.push(`${createHash('md5').update(fs.readFileSync(full)).digest('hex')}  ${rel}`);
    }
  };
  walk(staging);
  return `${lines.join('\n')}\n`;
}

function copyright() {
  return [
    'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
    'Upstream-Name: archivectl',
    '',
    'Files: *',
    `Copyright: archivectl contributors`,
    `License: ${pkg.license}`,
    '',
    'Files: opt/archivectl/*/node/*',
    'Copyright: Node.js contributors',
    'License: MIT',
    '',
    'Files: opt/archivectl/*/node_modules/* opt/archivectl/*/dist/bundle/*',
    'Copyright: archivectl contributors; the authors named in each production dependency',
    "License: MIT and each dependency's, gathered in opt/archivectl/*/THIRD_PARTY_LICENSES",
    '',
    'License: MIT',
    ' Permission is hereby granted, free of charge, to any person obtaining a copy of this',
    ' software and associated documentation files (the "Software"), to deal in the Software',
    ' without restriction, including without limitation the rights to use, copy, modify, merge,',
    ' publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons',
    ' to whom the Software is furnished to do so, subject to the following conditions:',
    ' .',
    ' The above copyright notice and this permission notice shall be included in all copies or',
    ' substantial portions of the Software.',
    ' .',
    ' THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,',
    ' INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR',
    ' PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE',
    ' FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR',
    ' OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER',
    ' DEALINGS IN THE SOFTWARE.',
    '',
  ].join('\n');
}

/** A Debian changelog entry for this build; the release notes are CHANGELOG.md in the tree. */
function debianChangelog() {
  const date = new Date(Number(process.env.SOURCE_DATE_EPOCH || Date.now() / 1000) * 1000);
  const stamp = date.toUTCString().replace(/^(\w+), (\d+) (\w+) (\d+) (\S+) GMT$/, '$1, $2 $3 $4 $5 +0000');
  return Buffer.from(
    [
      `archivectl (${version}) unstable; urgency=medium`,
      '',
      `  * Release ${version}; its notes: /opt/archivectl/${version}/CHANGELOG.md`,
      '',
      ` -- archivectl maintainers <archivectl@example.org>  ${stamp}`,
      '',
    ].join('\n'),
  );
}

// --- main -------------------------------------------------------------------------------------

fs.mkdirSync(out, { recursive: true });
if (!opt['no-build']) build();
const tree = path.join(out, name);
assembleTree(tree);
if (!opt['no-tarball']) tarball();
if (!opt['no-deb']) debianPackage(tree);
step('done');
