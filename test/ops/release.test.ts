// `npm run release` (scripts/release.js): the self-contained tree, its tarball and its Debian
// package, as a server installs them without npm, a compiler or a Node.js of its own. Built once
// for the file (about a minute: npm ci --omit=dev into the tree, gzip). What the package does when
// installed under a real systemd: test/systemd/ (run by .ci/run).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { installLegOnly, pathOf, systemTool } from '../helpers/system-tools.js';

const run = promisify(execFile);
const DPKG_DEB = systemTool('dpkg-deb', 'dpkg');
const LINTIAN = systemTool('lintian', 'lintian');
// Packaging runs in one CI leg (lintian alone takes minutes), like the other install tests.
const SKIP = installLegOnly() ?? DPKG_DEB.skip;
const VERSION = '0.0.1+test';
const NAME = `archivectl-${VERSION}-linux-${process.arch}`;
const DEB_ARCH = process.arch === 'arm64' ? 'arm64' : 'amd64';

let out = '';
const sh = async (cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) =>
  (await run(cmd, args, { maxBuffer: 64 << 20, timeout: 300_000, ...opts })).stdout;
const deb = () => path.join(out, `archivectl_${VERSION}_${DEB_ARCH}.deb`);
/** A file of the package's control archive (DEBIAN/), read through dpkg-deb. */
const controlFile = async (file: string) => {
  const dir = path.join(out, 'control');
  await sh(pathOf(DPKG_DEB, 'dpkg-deb'), ['--control', deb(), dir]);
  return readFile(path.join(dir, file), 'utf8');
};

describe.skipIf(SKIP)(`npm run release${SKIP ? ` (SKIPPED: ${SKIP})` : ''}`, () => {
  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), 'archivectl-release-'));
    // The bundle is test/global-setup.ts's; the man page and completions npm ci's prepare wrote.
    await sh(process.execPath, ['scripts/release.js', '--no-build', '--out', out, '--version', VERSION], {
      cwd: REPO_ROOT,
    });
  }, 600_000);
  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('runs `archivectl --version` with the node it carries, with no node on PATH', async () => {
    // PATH holds only the two tools bin/archivectl uses; reached through a link, as /usr/bin's
    const tools = path.join(out, 'tools');
    await sh('mkdir', [tools]);
    for (const tool of ['readlink', 'dirname']) {
      await symlink((await sh('sh', ['-c', `command -v ${tool}`])).trim(), path.join(tools, tool));
    }
    await symlink(path.join(out, NAME, 'bin', 'archivectl'), path.join(tools, 'archivectl'));
    const env = { PATH: tools, HOME: out };
    await expect(sh('/bin/sh', ['-c', 'command -v node || echo none'], { env })).resolves.toBe('none\n');
    const version = await sh(path.join(tools, 'archivectl'), ['--version'], { env });
    expect(version).toMatch(/^archivectl 0\.\d+\.\d+ \(database schema \d{14}_\w+\)/);
    const node = await sh(path.join(out, NAME, 'node', 'bin', 'node'), ['--version']);
    expect(node).toMatch(/^v(2[02468])\./);
    // sqlite3 loads in that node, from the binary taken from this machine's build
    const sqlite = await sh(
      path.join(out, NAME, 'node', 'bin', 'node'),
      ['-e', 'require("sqlite3"); console.log("loaded")'],
      { cwd: path.join(out, NAME) },
    );
    expect(sqlite).toBe('loaded\n');
  });

  it('packs one versioned directory in the tarball, with everything a server needs', async () => {
    const listing = (await sh('tar', ['-tzf', path.join(out, `${NAME}.tar.gz`)])).split('\n').filter(Boolean);
    expect(listing.every((entry) => entry.startsWith(`${NAME}/`))).toBe(true);
    for (const entry of [
      'bin/archivectl',
      'bin/archivectl.cjs',
      'node/bin/node',
      'dist/bundle/archivectl.cjs',
      'node_modules/sqlite3/build/Release/node_sqlite3.node',
      'node_modules/proxy-addr/package.json',
      'THIRD_PARTY_LICENSES',
      'systemd/archivectl.service',
      'systemd/archivectl.service.d/release.conf',
      'man/archivectl.1',
      'completion/archivectl.bash',
      'config.example.json',
    ]) {
      expect(listing, entry).toContain(`${NAME}/${entry}`);
    }
    expect(listing.some((entry) => entry.startsWith(`${NAME}/migrations/`) && entry.endsWith('.js'))).toBe(true);
    // every unit of systemd/ is there
    for (const unit of await readdir(path.join(REPO_ROOT, 'systemd')))
      expect(listing).toContain(`${NAME}/systemd/${unit}`);
    // no development dependency, and of the production ones only what runs outside the bundle
    // (the bundle holds knex's code, typescript is only valibot's peer for types)
    for (const module of ['vitest', 'knex', 'typescript', 'node-gyp'])
      expect(listing.some((entry) => entry.includes(`/node_modules/${module}/`))).toBe(false);
    expect(listing.filter((entry) => /\/node_modules\/.*\/(?!licen[cs]e)[^/]*\.(md|d\.ts|map)$/i.test(entry))).toEqual(
      [],
    );
    // the bundled modules' licences are kept, in one file
    const licences = await readFile(path.join(out, NAME, 'THIRD_PARTY_LICENSES'), 'utf8');
    expect(licences).toMatch(/^knex@\S+: MIT$/m);
    const owners = await sh('tar', [
      '--numeric-owner',
      '-tvzf',
      path.join(out, `${NAME}.tar.gz`),
      `${NAME}/bin/archivectl`,
    ]);
    expect(owners).toMatch(/^-rwxr-xr-x 0\/0 /);
  });

  it('runs the units from /opt/archivectl/current with the release node (a drop-in)', async () => {
    const dropIn = await readFile(path.join(out, NAME, 'systemd', 'archivectl.service.d', 'release.conf'), 'utf8');
    expect(dropIn).toMatch(/^ExecStart=$/m);
    expect(dropIn).toMatch(
      /^ExecStart=\/opt\/archivectl\/current\/node\/bin\/node( --\S+)* \/opt\/archivectl\/current\/bin\/archivectl\.cjs serve/m,
    );
  });

  it('builds a package: control, conffile, files under /opt/archivectl/<version>, links', async () => {
    const field = async (name: string) => (await sh(pathOf(DPKG_DEB, 'dpkg-deb'), ['-f', deb(), name])).trim();
    expect(await field('Package')).toBe('archivectl');
    expect(await field('Version')).toBe(VERSION);
    expect(await field('Architecture')).toBe(DEB_ARCH);
    // no npm, node or compiler: the C/C++ runtimes the bundled node links and useradd's package
    expect(await field('Depends')).toBe('libc6 (>= 2.28), libstdc++6, libgcc-s1, passwd');
    expect(await controlFile('conffiles')).toBe('/etc/archivectl/config.json\n');

    const contents = await sh(pathOf(DPKG_DEB, 'dpkg-deb'), ['--contents', deb()]);
    const rows = contents.split('\n').filter(Boolean);
    const row = (file: string) => rows.find((r) => r.split(/\s+/)[5] === `./${file}`) ?? '';
    // everything root's
    expect(rows.every((r) => r.split(/\s+/)[1] === 'root/root')).toBe(true);
    expect(row(`opt/archivectl/${VERSION}/node/bin/node`)).toMatch(/^-rwxr-xr-x/);
    expect(row('opt/archivectl/current')).toMatch(new RegExp(`-> ${VERSION.replace(/[.+]/g, '\\$&')}$`));
    expect(row('usr/bin/archivectl')).toMatch(/-> \/opt\/archivectl\/current\/bin\/archivectl$/);
    expect(row('lib/systemd/system/archivectl.service')).toMatch(/^-rw-r--r--/);
    expect(row('lib/systemd/system/archivectl.service.d/release.conf')).toMatch(/^-rw-r--r--/);
    expect(row('etc/archivectl/config.json')).toMatch(/^-rw-r--r--/);
    expect(row('usr/share/man/man1/archivectl.1.gz')).not.toBe('');
    expect(row('usr/share/doc/archivectl/copyright')).not.toBe('');
    // nothing in /usr/local, the admin's
    expect(rows.some((r) => / \.\/usr\/local\//.test(r))).toBe(false);
  });

  it('has maintainer scripts that create the user and directories and start nothing', async () => {
    const postinst = await controlFile('postinst');
    expect(postinst).toMatch(
      /useradd --system --gid archive [^]*--shell \/usr\/sbin\/nologin --comment "archivectl daemon" archive\n/,
    );
    expect(postinst).toMatch(
      /install -d -m 0700 -o archive -g archive \/var\/lib\/archivectl \/var\/cache\/archivectl/,
    );
    expect(postinst).toMatch(/systemctl daemon-reload/);
    const scripts = await Promise.all(['preinst', 'postinst', 'prerm', 'postrm'].map(controlFile));
    for (const script of scripts) {
      expect(script).not.toMatch(/systemctl (enable|start|restart|try-restart)/);
      expect(script).toContain(VERSION);
    }
    // the old release is kept for the daemon still running from it
    expect(scripts[0]).toMatch(/cp -al "\/opt\/archivectl\/\$old"/);
    // each parses as sh
    for (const name of ['preinst', 'postinst', 'prerm', 'postrm']) {
      await sh('sh', ['-n', path.join(out, 'control', name)]);
      expect((await stat(path.join(out, 'control', name))).mode & 0o777).toBe(0o755);
    }
  });

  it.skipIf(LINTIAN.skip)(
    `has no lintian error, nor an override without its reason${LINTIAN.skip ? ` (SKIPPED: ${LINTIAN.skip})` : ''}`,
    async () => {
      const report = await run(pathOf(LINTIAN, 'lintian'), ['--tag-display-limit', '0', '--fail-on', 'error', deb()], {
        maxBuffer: 64 << 20,
        timeout: 600_000,
      }).then(
        ({ stdout }) => stdout,
        (err: { stdout?: string; message: string }) => `${err.stdout ?? ''}\n${err.message}`,
      );
      expect(report.split('\n').filter((line) => line.startsWith('E: '))).toEqual([]);
      // each override follows a comment giving its reason
      const overrides = await readFile(path.join(REPO_ROOT, 'scripts', 'release', 'lintian-overrides'), 'utf8');
      const lines = overrides.split('\n');
      lines.forEach((line, i) => {
        if (line.startsWith('archivectl:')) expect(lines[i - 1], line).toMatch(/^(#|archivectl:)/);
      });
    },
    600_000,
  );
});
