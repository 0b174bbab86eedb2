// The unit the package ships, systemd/archivectl.service, is checked by systemd itself:
// `systemd-analyze verify` must accept it without a word (it exits 0 even on settings it ignores,
// so its output must be empty too), and `systemd-analyze security --offline=yes` must rate it at
// most 1.5 ("OK"; --threshold=15 makes a higher exposure exit non-zero). ExecStart= points at
// this checkout's binary, since verify checks that the program exists, and MANPATH at its manual
// page, since verify looks Documentation=man:archivectl(1) up.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT } from '../helpers/cli.js';
import { installLegOnly, pathOf, systemTool } from '../helpers/system-tools.js';

const run = promisify(execFile);
const installSkip = installLegOnly();
const analyze = installSkip === null ? systemTool('systemd-analyze', 'systemd') : { path: null, skip: installSkip };
const UNIT = path.join(REPO_ROOT, 'systemd', 'archivectl.service');
const SOCKET = path.join(REPO_ROOT, 'systemd', 'archivectl.socket');
const EXEC_START = /^ExecStart=\/usr\/bin\/node((?: --[a-z-]+=\S+)*) \/opt\/archivectl\/bin\/archivectl serve$/m;

/** The settings of a section of a unit ([Service] by default), each key with all its values. */
function serviceSettings(unit: string, section = 'Service'): Map<string, string[]> {
  const service = new RegExp(`^\\[${section}\\]\\n([\\s\\S]*?)(?=^\\[|(?![\\s\\S]))`, 'm').exec(unit)?.[1] ?? '';
  const out = new Map<string, string[]>();
  for (const m of service.matchAll(/^([A-Za-z]+)=(.*)$/gm)) {
    out.set(m[1] as string, [...(out.get(m[1] as string) ?? []), m[2] as string]);
  }
  return out;
}

/** The unit with ExecStart= running this checkout's binary with `node` (verify checks the program). */
async function localUnit(dir: string): Promise<string> {
  const unit = await readFile(UNIT, 'utf8');
  const flags = (EXEC_START.exec(unit)?.[1] ?? '').trim();
  const file = path.join(dir, 'archivectl.service');
  await writeFile(file, unit.replace(EXEC_START, `ExecStart=${process.execPath} ${flags} ${BIN} serve`));
  // The socket it requires, next to it, as installed.
  await copyFile(SOCKET, path.join(dir, 'archivectl.socket'));
  return file;
}

describe('the shipped unit, systemd/archivectl.service', () => {
  it.skipIf(installSkip !== null)('is in the package, and the README installs it from there', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT });
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
    expect(files).toContain('systemd/archivectl.service');
    expect(files).toContain('systemd/archivectl.socket');
    const readme = await readFile(path.join(REPO_ROOT, 'docs', 'deployment.md'), 'utf8');
    expect(readme).toMatch(
      /^install -m 0644 \$P\/systemd\/archivectl\.service \/etc\/systemd\/system\/archivectl\.service$/m,
    );
  });

  it('uses Type=notify, the state and cache directories, and the hardening lines', async () => {
    const settings = serviceSettings(await readFile(UNIT, 'utf8'));
    const one = (key: string) => settings.get(key)?.at(-1);
    expect(one('Type')).toBe('notify');
    expect(one('NotifyAccess')).toBe('all'); // systemd-notify, a child of the daemon, sends READY=1
    // The stop's SIGTERM to the daemon alone, not to systemd-notify sending STOPPING=1.
    expect(one('KillMode')).toBe('mixed');
    // `systemctl reload` is unsupported (docs/deployment.md): no ExecReload= pretends otherwise.
    expect(settings.has('ExecReload')).toBe(false);
    expect(one('StateDirectory')).toBe('archivectl');
    expect(one('CacheDirectory')).toBe('archivectl');
    expect(one('UMask')).toBe('0077');
    // serve migrates by itself: no second process racing it for the schema.
    expect(settings.has('ExecStartPre')).toBe(false);
    const expected: Record<string, string> = {
      NoNewPrivileges: 'yes',
      CapabilityBoundingSet: '',
      AmbientCapabilities: '',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      PrivateUsers: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectKernelLogs: 'yes',
      ProtectControlGroups: 'yes',
      ProtectClock: 'yes',
      ProtectHostname: 'yes',
      ProtectProc: 'invisible',
      ProcSubset: 'pid',
      RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX',
      RestrictNamespaces: 'yes',
      RestrictRealtime: 'yes',
      RestrictSUIDSGID: 'yes',
      LockPersonality: 'yes',
      SystemCallArchitectures: 'native',
      PrivateIPC: 'yes',
    };
    for (const [key, value] of Object.entries(expected)) expect(one(key), key).toBe(value);
    expect(settings.get('SystemCallFilter')).toContain('@system-service');
    // Writable places every service shares, outside ProtectSystem='s reach.
    expect(one('InaccessiblePaths')?.split(' ').sort()).toEqual(['-/dev/mqueue', '-/dev/shm', '-/run/lock']);
    // V8's JIT writes machine code and then runs it: node does not start under this.
    expect(settings.has('MemoryDenyWriteExecute')).toBe(false);
  });

  it('takes its listening socket from archivectl.socket, which the service requires', async () => {
    const unit = await readFile(UNIT, 'utf8');
    expect(serviceSettings(unit, 'Unit').get('Requires')).toEqual(['archivectl.socket']);
    expect(serviceSettings(unit, 'Unit').get('After')?.join(' ')).toContain('archivectl.socket');
    expect(serviceSettings(unit, 'Install').get('Also')).toEqual(['archivectl.socket']);
    const socket = serviceSettings(await readFile(SOCKET, 'utf8'), 'Socket');
    // The address the service listened on by itself before (listen.host and listen.port's defaults).
    expect(socket.get('ListenStream')).toEqual(['127.0.0.1:8080']);
    expect(socket.get('FileDescriptorName')).toEqual(['http']);
    // No Accept=yes: one daemon takes every connection, not one process each.
    expect(socket.has('Accept')).toBe(false);
  });

  it.skipIf(analyze.skip !== null)('passes systemd-analyze verify without a word', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-unit-'));
    try {
      const page = path.join(REPO_ROOT, 'man', 'archivectl.1');
      expect(existsSync(page), 'man/archivectl.1: run npm install').toBe(true);
      // man looks in section folders, as an installation has them (share/man/man1).
      await mkdir(path.join(dir, 'man', 'man1'), { recursive: true });
      await copyFile(page, path.join(dir, 'man', 'man1', 'archivectl.1'));
      const service = await localUnit(dir);
      const socket = path.join(dir, 'archivectl.socket');
      const { stdout, stderr } = await run(pathOf(analyze, 'systemd-analyze'), ['verify', service, socket], {
        env: { ...process.env, MANPATH: path.join(dir, 'man') },
      });
      expect(`${stdout}${stderr}`.trim()).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(analyze.skip !== null)('is rated at most 1.5 ("OK") by systemd-analyze security', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-unit-'));
    try {
      const { stdout } = await run(pathOf(analyze, 'systemd-analyze'), [
        'security',
        '--offline=yes',
        '--threshold=15',
        '--no-pager',
        await localUnit(dir),
      ]);
      const level = /Overall exposure level for archivectl\.service: (\d+\.\d) (\S+)/.exec(stdout);
      expect(level, stdout).not.toBeNull();
      expect(Number(level?.[1])).toBeLessThanOrEqual(1.5);
      expect(level?.[2]).toBe('OK');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the unit's node flags", () => {
  it('are the ones npm start and the bench run the daemon with', async () => {
    const unit = await readFile(UNIT, 'utf8');
    const unitFlags = EXEC_START.exec(unit)?.[1]?.trim().split(' ');
    expect(unitFlags?.length).toBeGreaterThan(0);
    // node must accept them as written (some it refuses in NODE_OPTIONS).
    await run(process.execPath, [...(unitFlags ?? []), '-e', '0']);
    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    expect(pkg.scripts.start).toBe(`MALLOC_ARENA_MAX=2 node ${unitFlags?.join(' ')} bin/archivectl serve`);
    // The README's drop-in for a node elsewhere keeps them.
    const readme = await readFile(path.join(REPO_ROOT, 'docs', 'deployment.md'), 'utf8');
    expect(readme).toContain(
      `ExecStart=/usr/local/bin/node ${unitFlags?.join(' ')} /opt/archivectl/bin/archivectl serve`,
    );
    // The unit's malloc arenas; the command's interpreter line sets none (the daemon runs under
    // the unit or npm start, other commands are short-lived).
    expect(unit).toMatch(/^Environment=MALLOC_ARENA_MAX=2$/m);
    const bin = await readFile(path.join(REPO_ROOT, 'bin', 'archivectl'), 'utf8');
    expect(bin.split('\n')[0]).toBe('#!/usr/bin/env node');
    const { UNIT_NODE_FLAGS } = (await import('../../bench/daemon.js')) as { UNIT_NODE_FLAGS: string[] };
    expect(process.env.BENCH_NODE_FLAGS).toBeUndefined();
    expect(UNIT_NODE_FLAGS).toEqual(unitFlags);
  });
});
