// The README's systemd unit is checked by systemd itself: `systemd-analyze verify` must accept
// it without a word (it exits 0 even on settings it ignores, so its output must be empty too).
// ExecStart points at this checkout's binary, since verify checks that the program exists.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT } from '../helpers/cli.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';

const analyze = systemTool('systemd-analyze', 'systemd');

describe.skipIf(analyze.skip !== null)("the README's systemd unit", () => {
  it('passes systemd-analyze verify and uses Type=notify with state under StateDirectory', async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const unit = /```ini\n(# \/etc\/systemd\/system\/archivectl\.service\n[\s\S]*?)```/.exec(readme)?.[1];
    expect(unit, 'an ini block holding archivectl.service').toBeDefined();
    expect(unit).toMatch(/^Type=notify$/m);
    expect(unit).toMatch(/^NotifyAccess=all$/m);
    expect(unit).toMatch(/^StateDirectory=archivectl$/m);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-unit-'));
    try {
      const file = path.join(dir, 'archivectl.service');
      // The node flags stay as written: node must accept them (some it refuses in NODE_OPTIONS).
      const exec = /^ExecStart=\/usr\/bin\/node((?: --[a-z-]+=\S+)*) \/opt\/archivectl\/bin\/archivectl serve$/m.exec(
        unit ?? '',
      );
      expect(exec, 'ExecStart=/usr/bin/node [flags] /opt/archivectl/bin/archivectl serve').not.toBeNull();
      const flags = (exec?.[1] ?? '').trim().split(' ').filter(Boolean);
      await promisify(execFile)(process.execPath, [...flags, '-e', '0']);
      const local = (unit ?? '').replace(
        /^ExecStart=.*$/m,
        `ExecStart=${process.execPath} ${flags.join(' ')} ${BIN} serve`,
      );
      expect(local).toContain(`ExecStart=${process.execPath}`);
      await writeFile(file, local);
      const { stdout, stderr } = await promisify(execFile)(pathOf(analyze, 'systemd-analyze'), ['verify', file]);
      expect(`${stdout}${stderr}`.trim()).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the unit's node flags", () => {
  it('are the ones npm start and the bench run the daemon with', async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const unitFlags = /^ExecStart=\/usr\/bin\/node((?: --[a-z-]+=\S+)*) \/opt\/archivectl\/bin\/archivectl serve$/m
      .exec(readme)?.[1]
      ?.trim()
      .split(' ');
    expect(unitFlags?.length).toBeGreaterThan(0);
    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    expect(pkg.scripts.start).toBe(`MALLOC_ARENA_MAX=2 node ${unitFlags?.join(' ')} bin/archivectl serve`);
    // The unit's malloc arenas; the command's interpreter line sets none (the daemon runs under
    // the unit or npm start, other commands are short-lived).
    expect(readme).toMatch(/^Environment=MALLOC_ARENA_MAX=2$/m);
    const bin = await readFile(path.join(REPO_ROOT, 'bin', 'archivectl'), 'utf8');
    expect(bin.split('\n')[0]).toBe('#!/usr/bin/env node');
    const { UNIT_NODE_FLAGS } = (await import('../../bench/daemon.js')) as { UNIT_NODE_FLAGS: string[] };
    expect(process.env.BENCH_NODE_FLAGS).toBeUndefined();
    expect(UNIT_NODE_FLAGS).toEqual(unitFlags);
  });
});
