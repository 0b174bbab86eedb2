// docs/security.md#leaked-tokens-and-secret-scanners: the database never holds a token value, only the selector and a scrypt
// hash of the secret. Every file of the installation (the SQLite file and its -wal/-shm
// files) is read byte by byte and searched for every value and every secret part.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createToken, IS_PG, legacyValue, useSandbox, type CreatedTokenJson } from '../helpers/cli.js';
import { filesUnder } from '../helpers/files.js';

interface Secret {
  what: string;
  value: string;
  /** The part that must never be stored: `arc_` characters 12..52, legacy characters 8..60. */
  secret: string;
  /** The public id, which is stored in plain text (a positive control for the search). */
  selector: string;
}

const arcSecret = (what: string, value: string): Secret => ({
  what,
  value,
  secret: value.slice(12, 52),
  selector: value.slice(4, 12),
});
const legacySecret = (what: string, value: string): Secret => ({
  what,
  value,
  secret: value.slice(8, 60),
  selector: value.slice(0, 8),
});

/** Every file under dir, as latin1 text (one character per byte). */
async function readAll(dir: string): Promise<Map<string, string>> {
  const contents = new Map<string, string>();
  for (const file of await filesUnder(dir))
    contents.set(path.relative(dir, file), (await readFile(file)).toString('latin1'));
  return contents;
}

function expectNoSecrets(contents: Map<string, string>, secrets: Secret[]): void {
  for (const [file, text] of contents) {
    for (const s of secrets) {
      expect(text.includes(s.value), `${s.what}: value found in ${file}`).toBe(false);
      expect(text.includes(s.secret), `${s.what}: secret found in ${file}`).toBe(false);
      // Also not as UTF-16 (a driver or a text column in another encoding).
      expect(
        text.includes(Buffer.from(s.secret, 'utf16le').toString('latin1')),
        `${s.what}: UTF-16 secret in ${file}`,
      ).toBe(false);
    }
  }
}

describe.skipIf(IS_PG)('secrets at rest (SQLite)', () => {
  const cli = useSandbox();
  const secrets: Secret[] = [];
  let reader: sqlite3.Database;

  const openReader = (file: string) =>
    new Promise<sqlite3.Database>((resolve, reject) => {
      const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => (err ? reject(err) : resolve(db)));
    });
  const query = (db: sqlite3.Database, sql: string) =>
    new Promise<unknown[]>((resolve, reject) => db.all(sql, (err, rows) => (err ? reject(err) : resolve(rows))));
  const close = (db: sqlite3.Database) =>
    new Promise<void>((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));

  beforeAll(async () => {
    // A second connection kept open while the CLI writes: the last connection to close
    // checkpoints and removes the -wal file, so this one keeps it on disk to be searched.
    reader = await openReader(cli.dbFile as string);
    await query(reader, 'SELECT count(*) FROM tokens');

    await createAccounts(cli, { alice: 'admin', bob: 'user', carol: 'user', dora: 'user' });
    const regular: CreatedTokenJson[] = [];
    for (const [owner, name] of [
      ['bob', 'one'],
      ['bob', 'two'],
      ['carol', 'three'],
    ] as const) {
      regular.push(
        await createToken(cli, owner, name, 'alice', ['--expires', '2037-12-31'], { now: '2026-11-20T12:00:00Z' }),
      );
    }
    regular.forEach((t, i) => secrets.push(arcSecret(`regular token ${i + 1}`, t.token)));

    // Printed value, not --json: the path an operator takes.
    const plain = await cli.run(['token', 'create', 'dora', '--name', 'plain', '--as', 'alice']);
    expect(plain.code, plain.stderr).toBe(0);
    secrets.push(arcSecret('plain token', plain.stdout.trim()));

    const rotated = await cli.json<CreatedTokenJson>(['token', 'rotate', regular[0]!.id, '--as', 'alice']);
    secrets.push(arcSecret('rotated token', rotated.token));

    const handoff = await cli.json<CreatedTokenJson>(['token', 'handoff', 'carol', '--as', 'alice']);
    secrets.push(arcSecret('handoff token', handoff.token));

    // Legacy values through stdin, so that no CSV file lies in the directory searched.
    const legacy = [legacyValue(), legacyValue(), legacyValue()];
    const imported = await cli.json(['token', 'import-legacy', '-', '--as', 'alice'], {
      input: `username,token,name\nbob,${legacy[0]},legacy one\ncarol,${legacy[1]},legacy two\ndora,${legacy[2]},legacy three\n`,
    });
    expect(imported).toEqual({ imported: 3, skipped: 0 });
    legacy.forEach((v, i) => secrets.push(legacySecret(`legacy token ${i + 1}`, v)));
    // A re-run verifies every line against its stored hash, and must write no value either.
    expect(
      await cli.json(['token', 'import-legacy', '-', '--as', 'alice'], { input: `username,token\nbob,${legacy[0]}\n` }),
    ).toEqual({ imported: 0, skipped: 1 });

    const revoked = await cli.json<CreatedTokenJson>(['token', 'revoke', regular[2]!.id, '--as', 'alice']);
    expect(revoked.status).toBe('revoked');
  });

  it('created every token the search looks for', async () => {
    expect(secrets).toHaveLength(9);
    const ids = ((await query(reader, 'SELECT selector FROM tokens')) as { selector: string }[]).map((r) => r.selector);
    for (const s of secrets) expect(ids, s.what).toContain(s.selector);
  });

  it('holds no value and no secret in the database file or its -wal/-shm files (another connection open)', async () => {
    const db = cli.dbFile as string;
    expect(existsSync(`${db}-wal`)).toBe(true); // kept by the reader connection
    const contents = await readAll(cli.dir);
    expect([...contents.keys()]).toEqual(expect.arrayContaining(['archive.sqlite3', 'archive.sqlite3-wal']));
    // Positive control: the public ids are stored in plain text, so the search does see the data.
    const everything = [...contents.values()].join('');
    for (const s of secrets) expect(everything.includes(s.selector), `${s.what}: selector not found`).toBe(true);
    expectNoSecrets(contents, secrets);
  });

  it('holds no value and no secret in any file once every connection is closed', async () => {
    await close(reader);
    const contents = await readAll(cli.dir);
    expect(contents.has('archive.sqlite3')).toBe(true);
    const everything = [...contents.values()].join('');
    for (const s of secrets) expect(everything.includes(s.selector), `${s.what}: selector not found`).toBe(true);
    expectNoSecrets(contents, secrets);
  });
});
