// Names a terminal would obey instead of show. Token names and usernames refuse C0 and C1
// controls (U+009B is a one-character CSI), DEL, and invisible or bidirectional format controls
// (U+061C, U+200B–U+200F, U+202A–U+202E, U+2066–U+2069, U+FEFF). Text already in the database
// (rows from before the rule, audit entries) is shown escaped (`\x1b`, `\u202e`) in tables,
// notes and messages; --json keeps the exact data.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connect.js';
import {
  childEnv,
  createAccounts,
  createToken,
  legacyValue,
  lines,
  useSandbox,
  type CliResult,
  type TokenJson,
} from '../helpers/cli.js';

const cli = useSandbox();

/** Every character class refused, with how it is shown escaped. */
const UNSAFE: [string, string][] = [
  ['\u001b', '\\x1b'],
  ['\u0007', '\\x07'],
  ['\u007f', '\\x7f'],
  ['\u009b', '\\x9b'],
  ['\u0085', '\\x85'],
  ['\u061c', '\\u061c'],
  ['\u200b', '\\u200b'],
  ['\u200f', '\\u200f'],
  ['\u202a', '\\u202a'],
  ['\u202e', '\\u202e'],
  ['\u2066', '\\u2066'],
  ['\u2069', '\\u2069'],
  ['\ufeff', '\\ufeff'],
];
// Controls are what this test looks for.
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

/** Nothing a terminal would obey, in either stream (line breaks apart). */
function expectNoRaw(r: CliResult): void {
  expect(RAW.test(r.stdout), `raw control in stdout: ${JSON.stringify(r.stdout)}`).toBe(false);
  expect(RAW.test(r.stderr), `raw control in stderr: ${JSON.stringify(r.stderr)}`).toBe(false);
}

/** Runs SQL-free writes on the sandbox's database, as an older version or a legacy import would have. */
async function withDatabase(work: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<void>): Promise<void> {
  const config = loadConfig(cli.configFile, childEnv(cli.env), cli.dir);
  const db = await openDatabase(config.database);
  try {
    await work(db);
  } finally {
    await db.destroy();
  }
}

beforeAll(async () => {
  await createAccounts(cli, { alice: 'admin', bob: 'user', carol: 'user' });
});

describe.concurrent('names that are refused', () => {
  it.each(UNSAFE)('refuses a token name with %j, saying so with the character escaped', async (char, escaped) => {
    const r = await cli.run(['token', 'create', 'bob', '--name', `evil${char}name`, '--as', 'alice']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('control characters or invisible formatting characters');
    expect(r.stderr).toContain(escaped);
    expectNoRaw(r);
  });

  it.each(UNSAFE)('refuses a username with %j, saying so with the character escaped', async (char, escaped) => {
    const r = await cli.run(['account', 'create', `mal${char}lory`, '--role', 'user', '--as', 'alice']);
    expect(r.code, r.stderr).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('control characters or invisible formatting characters');
    expect(r.stderr).toContain(escaped);
    expectNoRaw(r);
  });

  it('refuses such a name in a legacy import, naming the line, importing nothing', async () => {
    const value = legacyValue();
    const r = await cli.run(['token', 'import-legacy', '-', '--as', 'alice'], {
      input: `username,token,name\ncarol,${value},gnp\u202etxt.exe\n`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 2: .*\\u202e/);
    expectNoRaw(r);
    expect((await cli.json<TokenJson[]>(['token', 'list', '--all'])).map((t) => t.id)).not.toContain(value.slice(0, 8));
  });

  it('escapes an argument quoted back in an error message', async () => {
    const r = await cli.run(['account', 'show', 'x\u001b[2J\u202ey']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('x\\x1b[2J\\u202ey');
    expectNoRaw(r);
  });
});

describe('text already in the database', () => {
  const NAME = 'report\u202excod.exe \u001b[31mred\u009b2J\u007f\u200b end';
  const NAME_SHOWN = 'report\\u202excod.exe \\x1b[31mred\\x9b2J\\x7f\\u200b end';
  const USER = 'mal\u202elory';
  const USER_SHOWN = 'mal\\u202elory';
  let id: string;

  beforeAll(async () => {
    await createAccounts(cli, { dora: 'user' });
    id = (await createToken(cli, 'dora', 'to be renamed', 'alice')).id;
    await withDatabase(async (db) => {
      await db('tokens').where('selector', id).update({ name: NAME });
      await db('accounts').where('username', 'dora').update({ username: USER });
      await db('audit_log').insert({
        at: new Date().toISOString(),
        actor: 'old\u001b]0;pwned\u0007',
        action: 'token.create',
        target: `x "${NAME}"`,
      });
    });
  });

  it('is escaped in the token table', async () => {
    const r = await cli.run(['token', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(NAME_SHOWN);
    expect(r.stdout).toContain(USER_SHOWN);
    expectNoRaw(r);
  });

  it('is escaped by account list and account show', async () => {
    const list = await cli.run(['account', 'list']);
    expect(list.stdout).toContain(USER_SHOWN);
    expectNoRaw(list);
    const show = await cli.run(['account', 'show', USER]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`Account: ${USER_SHOWN}`);
    expect(show.stdout).toContain(NAME_SHOWN);
    expectNoRaw(show);
  });

  it('is escaped in the audit table', async () => {
    const r = await cli.run(['audit']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('old\\x1b]0;pwned\\x07');
    expect(r.stdout).toContain(NAME_SHOWN);
    expectNoRaw(r);
  });

  it('is escaped in notes: revoking the token names it escaped', async () => {
    const r = await cli.run(['token', 'revoke', id, '--as', 'alice']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(NAME_SHOWN);
    expect(r.stderr).toContain(USER_SHOWN);
    expectNoRaw(r);
  });

  it('stays the exact data in --json, written with JSON escapes', async () => {
    const r = await cli.run(['token', 'list', '--all', '--json']);
    expect(r.code).toBe(0);
    expectNoRaw(r);
    const t = (JSON.parse(r.stdout) as TokenJson[]).find((x) => x.id === id);
    expect(t).toMatchObject({ name: NAME, account: USER });
    const audit = await cli.run(['audit', '--json']);
    expectNoRaw(audit);
    expect((JSON.parse(audit.stdout) as { actor: string }[]).map((e) => e.actor)).toContain('old\u001b]0;pwned\u0007');
  });
});
