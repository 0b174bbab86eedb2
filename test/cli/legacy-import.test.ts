// docs/cli.md#tokens: `token import-legacy <file|->` reads CSV `username,token[,name]`; each
// token is 60 characters of [A-Za-z0-9] of an existing account; the whole file is checked
// first, and one bad line (named by number, never echoing a token) means nothing is imported.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  allTokens,
  createAccounts,
  legacyValue,
  STACK_FRAME_RE,
  useSandbox,
  type CliResult,
  type TokenJson,
} from '../helpers/cli.js';

const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { alice: 'admin', bob: 'user', carol: 'editor', dora: 'user', erik: 'user' });
});

async function csvFile(name: string, text: string): Promise<string> {
  const file = path.join(cli.dir, name);
  await writeFile(file, text);
  return file;
}

/** Asserts that no value (nor its secret part, characters 8..60) appears in the output. */
function expectNoValues(r: CliResult, values: string[]): void {
  for (const v of values) {
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toContain(v);
      expect(text).not.toContain(v.slice(8));
      expect(text).not.toContain(v.slice(0, 30));
    }
  }
}

describe('token import-legacy with username,token', () => {
  // One token per account: the earlier scheme had one per user, and without a name column
  // each is named "Legacy API token" (names are unique among an account's tokens).
  const values = [legacyValue(), legacyValue(), legacyValue()];
  let file: string;

  beforeAll(async () => {
    file = await csvFile('legacy.csv', `username,token\nbob,${values[0]}\ncarol,${values[1]}\nerik,${values[2]}\n`);
  });

  it('imports every line and prints {"imported": n, "skipped": 0}', async () => {
    const r = await cli.run(['token', 'import-legacy', file, '--as', 'alice', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(['imported', 'skipped']);
    expect(result).toEqual({ imported: 3, skipped: 0 });
    expectNoValues(r, values);
  });

  it('lists the imported tokens with kind legacy, active, no expiry, id = first 8 characters', async () => {
    const list = await cli.json<TokenJson[]>(['token', 'list']);
    for (const [i, owner] of [
      [0, 'bob'],
      [1, 'carol'],
      [2, 'erik'],
    ] as const) {
      const t = list.find((x) => x.id === values[i]!.slice(0, 8));
      expect(t, `token of line ${i + 2}`).toBeDefined();
      expect(t).toMatchObject({
        account: owner,
        kind: 'legacy',
        status: 'active',
        expires: null,
        last_used: null,
        name: 'Legacy API token',
      });
    }
  });

  it('shows "Legacy API token" in the human table, never the value', async () => {
    const r = await cli.run(['token', 'list', 'carol']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Legacy API token');
    expect(r.stdout).toContain(values[1]!.slice(0, 8));
    expectNoValues(r, values);
    const shown = await cli.run(['account', 'show', 'carol']);
    expect(shown.stdout).toContain('Legacy API token');
  });

  it('skips every line on a re-run: {"imported": 0, "skipped": n}', async () => {
    expect(await cli.json(['token', 'import-legacy', file, '--as', 'alice'])).toEqual({ imported: 0, skipped: 3 });
    const legacy = (await allTokens(cli)).filter((t) => t.kind === 'legacy');
    expect(legacy).toHaveLength(3);
  });

  it('does not bring back a revoked legacy token on a re-run', async () => {
    const id = values[2]!.slice(0, 8);
    const revoked = await cli.json<TokenJson>(['token', 'revoke', id, '--as', 'alice']);
    expect(revoked).toMatchObject({ kind: 'legacy', status: 'revoked' });
    expect(await cli.json(['token', 'import-legacy', file, '--as', 'alice'])).toEqual({ imported: 0, skipped: 3 });
    expect((await allTokens(cli)).filter((t) => t.id === id).map((t) => t.status)).toEqual(['revoked']);
  });

  it('records the import in the audit log, as the --as account, without any value', async () => {
    const r = await cli.run(['audit', '--json']);
    expect(r.code).toBe(0);
    const audit = JSON.parse(r.stdout) as { actor: string; action: string }[];
    // Re-runs that import nothing write no entry.
    expect(audit.filter((e) => e.action === 'token.import-legacy').map((e) => e.actor)).toEqual(['alice']);
    expectNoValues(r, values);
  });
});

describe('token import-legacy with the optional name column', () => {
  const values = [legacyValue(), legacyValue()];

  it('imports names, including a quoted name with a comma', async () => {
    const file = await csvFile(
      'named.csv',
      `username,token,name\ndora,${values[0]},"Nightly, ingest"\ndora,${values[1]},OpenRefine\n`,
    );
    expect(await cli.json(['token', 'import-legacy', file, '--as', 'alice'])).toEqual({ imported: 2, skipped: 0 });
    const list = await cli.json<TokenJson[]>(['token', 'list', 'dora']);
    const byId = Object.fromEntries(list.map((t) => [t.id, t]));
    expect(byId[values[0]!.slice(0, 8)]).toMatchObject({ name: 'Nightly, ingest', kind: 'legacy' });
    expect(byId[values[1]!.slice(0, 8)]).toMatchObject({ name: 'OpenRefine', kind: 'legacy' });
    const table = await cli.run(['token', 'list', 'dora']);
    expect(table.stdout).toContain('Legacy API token');
    expect(table.stdout).toContain('Nightly, ingest');
  });

  it('rotates a legacy token into a regular one with the same name, revoking the legacy token', async () => {
    const id = values[1]!.slice(0, 8);
    const fresh = await cli.json<TokenJson & { token: string }>(['token', 'rotate', id, '--as', 'alice']);
    expect(fresh).toMatchObject({ account: 'dora', name: 'OpenRefine', kind: 'regular', status: 'active' });
    expect(fresh.token).toMatch(/^arc_[0-9A-Za-z]{54}$/);
    expect((await allTokens(cli)).find((t) => t.id === id)).toMatchObject({ kind: 'legacy', status: 'revoked' });
  });
});

describe('token import-legacy with a bad line', () => {
  async function expectNothingImported(
    run: () => Promise<CliResult>,
    line: number,
    values: string[],
  ): Promise<CliResult> {
    const before = await allTokens(cli);
    const r = await run();
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`\\bline ${line}\\b`));
    // Only the bad line is reported: the other lines are good, and are not imported either.
    expect(r.stderr.match(/\bline \d+/g)).toEqual([`line ${line}`]);
    expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
    expectNoValues(r, values);
    const after = await allTokens(cli);
    expect(after).toEqual(before);
    for (const v of values) expect(after.map((t) => t.id)).not.toContain(v.slice(0, 8));
    return r;
  }

  it('refuses a 59-character token, naming its line, importing not even the good lines', async () => {
    const short = legacyValue().slice(0, 59);
    const values = [legacyValue(), short, legacyValue()];
    const file = await csvFile(
      'short.csv',
      `username,token,name\nbob,${values[0]},short-a\nbob,${short},short-b\ncarol,${values[2]},short-c\n`,
    );
    await expectNothingImported(() => cli.run(['token', 'import-legacy', file, '--as', 'alice', '--json']), 3, values);
  });

  it('refuses a token with a character outside [A-Za-z0-9]', async () => {
    const bad = `${legacyValue().slice(0, 59)}_`;
    const values = [legacyValue(), bad];
    const file = await csvFile('alphabet.csv', `username,token,name\nbob,${values[0]},alpha-a\nbob,${bad},alpha-b\n`);
    await expectNothingImported(() => cli.run(['token', 'import-legacy', file, '--as', 'alice']), 3, values);
  });

  it('refuses an unknown account, naming its line, importing nothing', async () => {
    const values = [legacyValue(), legacyValue(), legacyValue()];
    const file = await csvFile(
      'unknown.csv',
      `username,token,name\nbob,${values[0]},unk-a\ncarol,${values[1]},unk-b\nnobody,${values[2]},unk-c\n`,
    );
    const r = await expectNothingImported(
      () => cli.run(['token', 'import-legacy', file, '--as', 'alice', '--json']),
      4,
      values,
    );
    expect(r.stderr).toContain('nobody');
  });

  it('refuses a file without the username,token header', async () => {
    const values = [legacyValue()];
    const file = await csvFile('noheader.csv', `bob,${values[0]}\n`);
    const before = await allTokens(cli);
    const r = await cli.run(['token', 'import-legacy', file, '--as', 'alice']);
    expect(r.code).toBe(1);
    expectNoValues(r, values);
    // The first line is data: the message says what line 1 must be, and quotes none of it but
    // the username (not even the token in lower case, as the header's names are compared).
    expect(r.stderr).toContain('line 1 must be the header username,token or username,token,name');
    expectNoValues(
      { ...r, stderr: r.stderr.toLowerCase() },
      values.map((value) => value.toLowerCase()),
    );
    expect(await allTokens(cli)).toEqual(before);
  });

  it('names a misspelt header column, and only words', async () => {
    const values = [legacyValue()];
    const misspelt = await csvFile('misspelt.csv', `usrname,token\nbob,${values[0]}\n`);
    const r = await cli.run(['token', 'import-legacy', misspelt, '--as', 'alice']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('(unknown column(s) "usrname")');
    const extra = await csvFile('extra.csv', `username,token,${values[0]}\nbob,${values[0]},x\n`);
    const e = await cli.run(['token', 'import-legacy', extra, '--as', 'alice']);
    expect(e.code).toBe(1);
    expect(e.stderr).toContain('unknown column(s) column 3');
    expectNoValues(
      { ...e, stderr: e.stderr.toLowerCase() },
      values.map((value) => value.toLowerCase()),
    );
  });

  it('documents the header line in --help', async () => {
    const r = await cli.run(['token', 'import-legacy', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/The first line is the header/);
    expect(r.stdout).toMatch(/^ {2}username,token,name$/m);
  });

  it('refuses a missing file (exit 1)', async () => {
    const r = await cli.run(['token', 'import-legacy', path.join(cli.dir, 'does-not-exist.csv'), '--as', 'alice']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('does-not-exist.csv');
  });
});

describe('token import-legacy -', () => {
  it('reads the CSV from standard input', async () => {
    const values = [legacyValue(), legacyValue()];
    const r = await cli.run(['token', 'import-legacy', '-', '--as', 'alice', '--json'], {
      input: `username,token,name\nbob,${values[0]},stdin-a\ncarol,${values[1]},stdin-b\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ imported: 2, skipped: 0 });
    const ids = (await allTokens(cli)).map((t) => t.id);
    expect(ids).toEqual(expect.arrayContaining(values.map((v) => v.slice(0, 8))));
  });

  it('refuses a bad line from standard input the same way', async () => {
    const values = [legacyValue(), legacyValue().slice(0, 59)];
    const before = await allTokens(cli);
    const r = await cli.run(['token', 'import-legacy', '-', '--as', 'alice'], {
      input: `username,token,name\ncarol,${values[0]},stdin-c\ncarol,${values[1]},stdin-d\n`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\bline 3\b/);
    expectNoValues(r, values);
    expect(await allTokens(cli)).toEqual(before);
  });
});
