// archivectl(1) is written from the command tree, so every command and option the CLI has is in
// it, and groff renders it without a warning (-ww: all warnings on).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, version } from '../../src/cli/main.js';
import { manPage } from '../../src/cli/man-page.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';

const groff = systemTool('groff', 'groff-base');
const page = manPage(buildProgram(), version(), '2026-11-22');

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

describe('the manual page', () => {
  it('names every command, with its options, in roff', () => {
    const program = buildProgram();
    const paths = commandPaths(program);
    expect(paths.map((p) => p.join(' '))).toEqual(
      expect.arrayContaining(['serve', 'token revoke', 'doctor', 'backup']),
    );
    const roffText = (s: string) => s.replace(/-/g, '\\-');
    for (const p of paths) expect(page, p.join(' ')).toContain(`.B ${roffText(p.join(' '))} `);
    for (const option of ['--no-migrate', '--expiring-within', '--force', '--yes']) {
      expect(page).toContain(roffText(option));
    }
    expect(page).toMatch(/^\.TH ARCHIVECTL 1 "2026-11-22" "archivectl \d+\.\d+\.\d+"/);
  });

  it('is what the bundle that ships writes (npm prepare writes man/archivectl.1 from it)', () => {
    const bundle = (file: string) =>
      createRequire(import.meta.url)(path.join(REPO_ROOT, 'dist', 'bundle', file)) as unknown;
    const shipped = bundle('archivectl.cjs') as { buildProgram: typeof buildProgram; version: typeof version };
    const { manPage: shippedPage } = bundle('man-page.cjs') as { manPage: typeof manPage };
    expect(shippedPage(shipped.buildProgram(), shipped.version(), '2026-11-22')).toBe(page);
  });

  it.skipIf(groff.skip !== null)('renders with groff without a warning', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-man-'));
    try {
      const file = path.join(dir, 'archivectl.1');
      await writeFile(file, page);
      const run = promisify(execFile);
      const { stdout, stderr } = await run(pathOf(groff, 'groff'), ['-man', '-Tutf8', '-ww', file]);
      expect(stderr).toBe('');
      // Overstruck bold and underline (a character, a backspace, a character), as a terminal shows them.
      // eslint-disable-next-line no-control-regex
      const text = stdout.replace(/.\x08/g, '');
      expect(text).toContain('COMMANDS');
      expect(text).toContain('token revoke');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
