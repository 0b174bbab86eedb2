// The README's Quickstart, run as written by bash (-e: the first failing command fails the
// test), from its first line (`export PATH="$PWD/bin:$PATH"`) to the last curl, in a directory
// laid out like the checkout: its bin/ and package.json are the checkout's, so `archivectl` and
// `npm start` are found as in a clone after `npm install`, while ./data is the test's own. One
// change: port 8080, which another program may hold on this machine, becomes a free port, in a
// config.json of the directory (which keeps the default database ./data/archive.sqlite3) and in
// the URLs. Then the paragraph after it: from elsewhere, the CLI finds that installation only
// when told where it is (--config, ARCHIVE_CONFIG).
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IS_PG, REPO_ROOT } from '../helpers/cli.js';
import { freePort } from '../helpers/raw-http.js';
import { installLegOnly } from '../helpers/system-tools.js';
import { codeBlocks, readmeSection, runScript, type ScriptRun } from './readme-replay.js';

const skip =
  installLegOnly() ??
  (IS_PG ? 'skipped in the PostgreSQL pass: the Quickstart uses SQLite, run in the SQLite pass' : null);

describe.skipIf(skip !== null)(`the README's Quickstart, replayed${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let dir = '';
  let elsewhere = '';
  let port = 0;
  let run: ScriptRun;

  beforeAll(async () => {
    const [block] = codeBlocks(readmeSection('Quickstart'), 'sh');
    expect(block, 'a sh block in the Quickstart').toBeDefined();
    const script = block as string;
    expect(script.split('\n')[0]).toMatch(/^export PATH="\$PWD\/bin:\$PATH"/);
    expect(script).toContain('127.0.0.1:8080');
    port = await freePort();
    dir = mkdtempSync(path.join(os.tmpdir(), 'archivectl-quickstart-'));
    elsewhere = mkdtempSync(path.join(os.tmpdir(), 'archivectl-elsewhere-'));
    symlinkSync(path.join(REPO_ROOT, 'bin'), path.join(dir, 'bin'));
    symlinkSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ listen: { port } }));
    run = await runScript(script.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`), { cwd: dir });
  }, 180_000);

  afterAll(() => {
    for (const d of [dir, elsewhere]) if (d) rmSync(d, { recursive: true, force: true });
  });

  it('runs to its end: a database in ./data, a daemon, a token that reads and writes', () => {
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const db = path.join(dir, 'data', 'archive.sqlite3');
    expect(existsSync(db)).toBe(true);
    expect(statSync(db).mode & 0o777).toBe(0o600);
    // npm start's daemon logs to the same stdout as curl; curl's answers end without a newline.
    expect(run.stdout).toContain(`"url":"http://127.0.0.1:${port}"`);
    expect(run.stdout).toMatch(/\{"data":\[\],/);
    expect(run.stdout).toMatch(/\{"data":\{[^}]*"name":"Ada Lovelace"/);
    expect(run.stdout).toMatch(/"status":201/);
    // The token was captured by the shell, never printed.
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/arc_[0-9A-Za-z]{54}/);
  });

  it('from another directory finds no installation until told where it is (--config, ARCHIVE_CONFIG)', async () => {
    const config = path.join(dir, 'config.json');
    const lost = await runScript(`${path.join(REPO_ROOT, 'bin', 'archivectl')} account list`, { cwd: elsewhere });
    expect(lost.code).toBe(2);
    expect(lost.stderr).toContain(path.join(elsewhere, 'data', 'archive.sqlite3'));
    expect(lost.stderr).toMatch(/--config or ARCHIVE_CONFIG/);
    expect(existsSync(path.join(elsewhere, 'data'))).toBe(false);
    for (const script of [
      `archivectl --config ${JSON.stringify(config)} account list --json`,
      `ARCHIVE_CONFIG=${JSON.stringify(config)} archivectl account list --json`,
    ]) {
      const found = await runScript(`export PATH=${JSON.stringify(path.join(REPO_ROOT, 'bin'))}:"$PATH"; ${script}`, {
        cwd: elsewhere,
      });
      expect(found.code, found.stderr).toBe(0);
      const names = (JSON.parse(found.stdout) as { username: string }[]).map((a) => a.username).sort();
      expect(names).toEqual(['ingest-bot', 'root']);
    }
  });
});
