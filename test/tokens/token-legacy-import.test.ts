// `token import-legacy` as the domain does it (importLegacy in src/domain/tokens/legacy-import.ts),
// on the sandbox's database: the rows and the audit entry an import writes, what a re-run skips,
// what the database already holds that refuses a line (an id, a name), the refusals of the
// authority rule in line order, and the second check in the writing transaction of what changed
// while the file was hashed (staged from the progress callback).
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connect.js';
import { isAppError } from '../../src/errors.js';
import { verifySecret } from '../../src/domain/tokens/hash.js';
import { importLegacy } from '../../src/domain/tokens/legacy-import.js';
import { childEnv, createAccounts, createSandbox, createToken, legacyValue, type Sandbox } from '../helpers/cli.js';

const NOW = new Date('2026-11-20T12:00:00.000Z');

let box: Sandbox;
let db: Knex;
const ctx = () => ({ db, clock: { now: () => NOW } });

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, {
    root: 'superuser',
    alice: 'admin',
    bob: 'user',
    carol: 'editor',
    dora: 'user',
    erik: 'user',
    fay: 'user',
    gus: 'admin',
    hal: 'admin',
    ivy: 'user',
    jo: 'user',
  });
  const database = loadConfig(box.configFile, childEnv(box.env), box.dir).database;
  // One connection (SQLite has no other): a write queued from the progress callback runs before
  // the import's transaction, which waits for the connection.
  db = await openDatabase(database.client === 'pg' ? { ...database, pool: { min: 1, max: 1 } } : database);
});

afterAll(async () => {
  await db?.destroy();
  await box?.cleanup();
});

const csv = (rows: string[][], header = 'username,token,name') => [header, ...rows.map((r) => r.join(','))].join('\n');
type Progress = [phase: string, done: number, total: number];

/** The refusal `run` ends with: its kind and message. */
async function refusal(run: Promise<unknown>): Promise<{ kind: string; message: string }> {
  const err = await run.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  if (!isAppError(err)) throw err;
  return { kind: err.kind, message: err.message };
}

const tokenRows = (values: string[]) =>
  db('tokens as t')
    .join('accounts as a', 'a.id', 't.account_id')
    .whereIn(
      't.selector',
      values.map((v) => v.slice(0, 8)),
    )
    .orderBy('t.id')
    .select<{ selector: string; username: string; name: string; kind: string; secret_hash: string }[]>(
      't.selector',
      'a.username',
      't.name',
      't.kind',
      't.secret_hash',
    );

const auditRows = () =>
  db('audit_log')
    .where('action', 'token.import-legacy')
    .orderBy('id')
    .select<{ at: string; actor: string; target: string }[]>('at', 'actor', 'target');

/** importLegacy acting as alice, with the progress it reported. */
async function importRecorded(text: string): Promise<{ result: unknown; progress: Progress[] }> {
  const progress: Progress[] = [];
  const result = await importLegacy(ctx(), text, { actor: 'alice', progress: (...p) => void progress.push(p) });
  return { result, progress };
}

describe('an import', () => {
  const values = [legacyValue(), legacyValue(), legacyValue()];
  const text = csv([
    ['bob', values[0] as string, 'nightly'],
    ['carol', values[1] as string, ''],
    ['dora', values[2] as string, 'OpenRefine'],
  ]);

  it('writes each line as a legacy token of its account, the hash in legacy_imports, and one audit entry', async () => {
    const audited = (await auditRows()).length;
    const { result, progress } = await importRecorded(text);
    expect(result).toEqual({ imported: 3, skipped: 0 });
    expect(progress).toEqual([
      ['hashing', 1, 3],
      ['hashing', 2, 3],
      ['hashing', 3, 3],
    ]);
    const rows = await tokenRows(values);
    expect(rows.map(({ secret_hash: _, ...r }) => r)).toEqual([
      { selector: values[0]?.slice(0, 8), username: 'bob', name: 'nightly', kind: 'legacy' },
      { selector: values[1]?.slice(0, 8), username: 'carol', name: 'Legacy API token', kind: 'legacy' },
      { selector: values[2]?.slice(0, 8), username: 'dora', name: 'OpenRefine', kind: 'legacy' },
    ]);
    const full: unknown = await db('tokens')
      .where('selector', rows[0]?.selector)
      .first('expires', 'expires_at', 'created_at', 'last_used_at', 'revoked_at');
    expect(full).toEqual({
      expires: null,
      expires_at: null,
      created_at: NOW.toISOString(),
      last_used_at: null,
      revoked_at: null,
    });
    for (const [i, row] of rows.entries()) {
      expect(await verifySecret(row.secret_hash, (values[i] as string).slice(8))).toBe(true);
      const imported: unknown = await db('legacy_imports')
        .where('selector', row.selector)
        .first('secret_hash', 'imported_at');
      expect(imported).toEqual({
        secret_hash: row.secret_hash,
        imported_at: NOW.toISOString(),
      });
    }
    const audit = await auditRows();
    expect(audit.slice(audited)).toEqual([
      { at: NOW.toISOString(), actor: 'alice', target: '3 legacy tokens (0 already imported)' },
    ]);
  });

  it('skips on a re-run the lines already imported, and records an entry only when it imports', async () => {
    const audited = (await auditRows()).length;
    const more = legacyValue();
    const again = `${text}\nerik,${more},`;
    const { result, progress } = await importRecorded(again);
    expect(result).toEqual({ imported: 1, skipped: 3 });
    expect(progress).toEqual([
      ['checking', 1, 3],
      ['checking', 2, 3],
      ['checking', 3, 3],
      ['hashing', 1, 1],
    ]);
    expect((await auditRows()).slice(audited).map((e) => e.target)).toEqual(['1 legacy tokens (3 already imported)']);
    // Nothing new: no entry (and no progress callback needed).
    expect(await importLegacy(ctx(), again, { actor: 'alice' })).toEqual({ imported: 0, skipped: 4 });
    expect((await auditRows()).length).toBe(audited + 1);
    expect(await tokenRows([...values, more])).toHaveLength(4);
  });

  it('refuses an id imported before with another secret', async () => {
    const other = (values[1] as string).slice(0, 8) + legacyValue().slice(8);
    const progress: Progress[] = [];
    expect(
      await refusal(
        importLegacy(ctx(), csv([['carol', other, 'again']]), {
          actor: 'alice',
          progress: (...p) => void progress.push(p),
        }),
      ),
    ).toEqual({
      kind: 'invalid',
      message: `line 2: another token with the same id ${other.slice(0, 8)} was imported before\nnothing was imported`,
    });
    expect(progress).toEqual([['checking', 1, 1]]);
  });
});

describe('a line the database refuses', () => {
  it('is one whose id a token that was not imported already has', async () => {
    const made = await createToken(box, 'fay', 'made here', 'root');
    const value = made.id + legacyValue().slice(8);
    expect(await refusal(importLegacy(ctx(), csv([['fay', value, 'collides']]), { actor: 'alice' }))).toEqual({
      kind: 'invalid',
      message: `line 2: the id ${made.id} is already used by another token\nnothing was imported`,
    });
  });

  it("is one whose name the account's tokens not revoked, or an earlier line, already give", async () => {
    await createToken(box, 'ivy', 'nightly', 'root');
    const old = await createToken(box, 'ivy', 'old', 'root');
    expect((await box.run(['token', 'revoke', old.id, '--as', 'root'])).code).toBe(0);
    const v = Array.from({ length: 6 }, () => legacyValue());
    const refused = csv([
      ['ivy', v[0] as string, 'nightly'], // 2: a token of ivy's has it
      ['ivy', v[1] as string, 'old'], // 3: only a revoked one has it
      ['ivy', v[2] as string, 'shared'], // 4
      ['ivy', v[3] as string, 'shared'], // 5: line 4 gives it
      ['erik', v[4] as string, 'nightly'], // 6: another account's name
    ]);
    expect(await refusal(importLegacy(ctx(), refused, { actor: 'alice' }))).toEqual({
      kind: 'invalid',
      message: [
        'line 2: ivy already has a token named "nightly"',
        'line 5: ivy has a token named "shared" on line 4 too',
        'nothing was imported',
      ].join('\n'),
    });
    expect(await tokenRows(v)).toEqual([]);
    const accepted = csv([
      ['ivy', v[1] as string, 'old'],
      ['ivy', v[2] as string, 'shared'],
      ['erik', v[4] as string, 'nightly'],
    ]);
    expect(await importLegacy(ctx(), accepted, { actor: 'alice' })).toEqual({ imported: 3, skipped: 0 });
  });
});

describe('the lines of a refused file', () => {
  it('are reported each once, in line order, whichever check found them', async () => {
    const v = Array.from({ length: 12 }, () => legacyValue());
    const rows = [
      ['bob', `${v[0]?.slice(0, 59)}!`, 'a'], // 2: read from the file
      ['nobody', v[1] as string, 'b'], // 3: looked up
      ['root', v[2] as string, 'c'], // 4: the authority rule
      ['alice', v[3] as string, 'd'], // 5: the authority rule
      ['', v[4] as string, 'e'], // 6: read from the file only
      ...[5, 6, 7, 8, 9].map((i) => ['bob', v[i] as string, `fine ${i}`]), // 7-11
      ['bob', (v[10] as string).slice(0, 59), 'k'], // 12: read from the file
    ];
    const { kind, message } = await refusal(importLegacy(ctx(), csv(rows), { actor: 'alice' }));
    expect(kind).toBe('invalid');
    expect(message).toBe(
      [
        'line 2: the token is not 60 characters of A-Z, a-z, 0-9',
        'line 3: no account named "nobody"',
        'line 4: alice (admin) may not import tokens of the superuser root',
        'line 5: alice may not import its own tokens: ask another admin',
        'line 6: the username is empty',
        'line 12: the token is not 60 characters of A-Z, a-z, 0-9',
        'nothing was imported',
      ].join('\n'),
    );
    for (const value of v) expect(message).not.toContain(value.slice(8, 30));
    expect(await tokenRows(v)).toEqual([]);
  });
});

describe('a large file', () => {
  it('is written in parts of 100 rows', async () => {
    const v = Array.from({ length: 101 }, () => legacyValue());
    const text = csv(v.map((value, i) => ['dora', value, `part ${i}`]));
    expect(await importLegacy(ctx(), text, { actor: 'alice' })).toEqual({ imported: 101, skipped: 0 });
    expect(await tokenRows(v)).toHaveLength(101);
  });
});

describe('what changed while the file was hashed', () => {
  /** Imports one line of `owner` as `actor`, running `change` when the hashing reports. */
  async function importWhile(actor: string, owner: string, change: () => Promise<unknown>) {
    const value = legacyValue();
    let changed: Promise<unknown> = Promise.resolve();
    const outcome = await refusal(
      importLegacy(ctx(), csv([[owner, value, 'raced']]), {
        actor,
        progress: (phase) => {
          if (phase === 'hashing') changed = change();
        },
      }),
    );
    await changed;
    expect(await tokenRows([value])).toEqual([]);
    return outcome;
  }
  const setRole = (username: string, role: string) => () =>
    db('accounts')
      .where('username', username)
      .update({ role })
      .then(() => undefined);
  const remove = (username: string) => () =>
    db('accounts')
      .where('username', username)
      .delete()
      .then(() => undefined);

  it('refuses an owner promoted to superuser meanwhile', async () => {
    expect(await importWhile('gus', 'bob', setRole('bob', 'superuser'))).toEqual({
      kind: 'forbidden',
      message: 'gus (admin) may not import tokens of the superuser bob; nothing was imported',
    });
    await setRole('bob', 'user')();
  });

  it('refuses an owner deleted meanwhile', async () => {
    expect(await importWhile('gus', 'erik', remove('erik'))).toEqual({
      kind: 'conflict',
      message: 'the account erik changed during the import; nothing was imported, try again',
    });
  });

  it('refuses an owner deleted and made again meanwhile (another account of the same name)', async () => {
    const row = await db('accounts')
      .where('username', 'jo')
      .first<{ role: string; created_at: string; updated_at: string }>('role', 'created_at', 'updated_at');
    // Both statements queued at once: they run in this order, before the import's transaction.
    const again = () =>
      Promise.all([
        db('accounts')
          .where('username', 'jo')
          .delete()
          .then(() => undefined),
        db('accounts')
          .insert({ username: 'jo', ...row })
          .then(() => undefined),
      ]);
    expect(await importWhile('gus', 'jo', again)).toEqual({
      kind: 'conflict',
      message: 'the account jo changed during the import; nothing was imported, try again',
    });
  });

  it('refuses an actor no longer an admin, or deleted', async () => {
    expect(await importWhile('hal', 'carol', setRole('hal', 'user'))).toEqual({
      kind: 'forbidden',
      message: 'hal (user) may not import tokens: only an admin or superuser may',
    });
    expect(await importWhile('gus', 'carol', remove('gus'))).toEqual({
      kind: 'not_found',
      message: 'no account named "gus"; nothing was imported',
    });
  });
});
