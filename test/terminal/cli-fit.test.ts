// Issue 36: everything fits the terminal it is shown in (help reflowed, examples never broken
// inside a word, routes and audit at 80 columns), progress of long work on a terminal's stderr
// only, and sizes for people.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createToken, IS_PG, legacyValue, lines, useSandbox } from '../helpers/cli.js';

import { runInTerminal } from './cli-terminal.js';

const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { root: 'superuser', alice: 'admin', 'ingest-bot': 'editor' });
  await createToken(cli, 'ingest-bot', 'nightly ingest of the whole catalogue from the old system', 'alice');
});

const HELPS = [
  [],
  ['token'],
  ['token', 'create'],
  ['token', 'list'],
  ['settings'],
  ['doctor'],
  ['backup'],
  ['catalog', 'load'],
  ['copy-database'],
  ['account'],
  ['completion'],
];

describe('help', () => {
  it.each([80, 60])('fits %i columns, every page, no word broken', async (columns) => {
    for (const page of HELPS) {
      const r = await runInTerminal(cli, [...page, '--help'], { columns }).done;
      expect(r.code, page.join(' ')).toBe(0);
      for (const line of lines(r.stdout))
        expect(line.length, `${page.join(' ')}: ${line}`).toBeLessThanOrEqual(columns);
    }
  });

  it('keeps an example whole: a long one continues with "\\" between words', async () => {
    const r = await runInTerminal(cli, ['token', 'create', '--help'], { columns: 60 }).done;
    const example = r.stdout.slice(r.stdout.indexOf('Example:'));
    expect(example).toContain('--expires 2027-06-30');
    expect(example).toMatch(/ \\\n {6}\S/);
    // The lines joined at their "\" are the command as written.
    expect(example.replace(/ \\\n +/g, ' ')).toContain(
      'TOKEN=$(archivectl token create ingest-bot --name "nightly ingest" --expires 2027-06-30 --as alice)',
    );
  });

  it('reflows the closing paragraphs to the width: wider terminal, fewer lines', async () => {
    const narrow = await runInTerminal(cli, ['token', '--help'], { columns: 60 }).done;
    const wide = await runInTerminal(cli, ['token', '--help'], { columns: 160 }).done;
    expect(lines(wide.stdout).length).toBeLessThan(lines(narrow.stdout).length);
    expect(wide.stdout.replace(/\s+/g, ' ')).toBe(narrow.stdout.replace(/\s+/g, ' '));
  });

  it('help <command> <subcommand> shows the subcommand', async () => {
    const r = await cli.run(['help', 'token', 'create']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: archivectl token create \[options\] <username>/);
    const unknown = await cli.run(['help', 'token', 'nosuch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'token nosuch'/);
  });
});

describe('tables at 80 columns', () => {
  it('routes: every line fits, the rules explained below', async () => {
    const r = await runInTerminal(cli, ['routes']).done;
    expect(r.code, r.stderr).toBe(0);
    for (const line of lines(r.stdout)) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines(r.stdout)[0]).toMatch(/^Method +Path +Rule +Scope +Open$/);
    expect(r.stdout).toMatch(/\n {2}authority +authority: open while public_access is on,/);
  });

  it('audit: every line fits, and a target keeps its account, its token name cut instead', async () => {
    const r = await runInTerminal(cli, ['audit']).done;
    expect(r.code, r.stderr).toBe(0);
    for (const line of lines(r.stdout)) expect(line.length, line).toBeLessThanOrEqual(80);
    const create = lines(r.stdout).find((line) => line.includes('token.create'));
    expect(create).toMatch(/ "nightly[^"]*…" of ingest-bot$/);
    // Piped, nothing is cut.
    const piped = await cli.run(['audit']);
    expect(piped.stdout).toContain('"nightly ingest of the whole catalogue from the old system" of ingest-bot');
  });
});

describe('progress', () => {
  it('token import-legacy shows it on a terminal, erased at the end; piped, none', async () => {
    const file = path.join(cli.dir, 'legacy.csv');
    await writeFile(
      file,
      `username,token,name\n${Array.from({ length: 3 }, (_, i) => `ingest-bot,${legacyValue()},legacy ${i}`).join('\n')}\n`,
    );
    const r = await runInTerminal(cli, ['token', 'import-legacy', file, '--as', 'alice']).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\rhashing tokens \[#{20}\] 100% {2}3\/3/);
    // Erased (carriage return, erase to the end of the line) before the closing note.
    expect(r.stderr).toContain(`\r${String.fromCharCode(27)}[Kimported 3 legacy token(s)`);
    const piped = await cli.run(['token', 'import-legacy', file, '--as', 'alice']);
    expect(piped.stderr).toBe('imported 0 legacy token(s), skipped 3 already imported\n');
  });

  it('catalog load shows the bytes read of the file on a terminal, erased before the table; piped, none', async () => {
    const file = path.join(cli.dir, 'catalogue.json');
    const actors = Array.from({ length: 50 }, (_, i) => ({ name: `Progress Actor ${i}`, type: 'person' }));
    await writeFile(file, JSON.stringify({ actors }));
    const r = await runInTerminal(cli, ['catalog', 'load', file]).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\rloading catalogue\.json \[#{20}\] 100% {2}\d+(\.\d)? KiB\/\d+(\.\d)? KiB/);
    expect(r.stderr.endsWith(`\r${String.fromCharCode(27)}[K`)).toBe(true);
    const piped = await cli.run(['catalog', 'load', file]);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toBe('');
  });
});

describe.skipIf(IS_PG)('backup', () => {
  it('says the size for people, and a missing folder plainly', async () => {
    const r = await cli.run(['backup', path.join(cli.dir, 'copy.sqlite3')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/ \(\d+(\.\d)? KiB\)\n$/);
    const missing = path.join(cli.dir, 'no', 'such', 'folder', 'copy.sqlite3');
    const refused = await cli.run(['backup', missing]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error: cannot write ${missing}: the folder ${path.dirname(missing)} does not exist (create it first)\n`,
    );
    await mkdir(path.dirname(missing), { recursive: true });
    expect((await cli.run(['backup', missing])).code).toBe(0);
  });
});
