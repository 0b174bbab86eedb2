// Issue 10, finding 11: no backup command, and copying a WAL-mode SQLite file while the daemon
// writes loses recent commits. `archivectl backup <file>` writes a consistent snapshot.
import { existsSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAccounts, IS_PG, useSandbox, withSandboxDb } from '../helpers/cli.js';
import { openSqlite, querySqlite } from '../helpers/sqlite.js';

describe.skipIf(IS_PG)('backup on SQLite', () => {
  const cli = useSandbox();

  it('copies commits still in the -wal file while another connection writes, into a 0600 file', async () => {
    await createAccounts(cli, { root: 'superuser' });
    const writer = await openSqlite(cli.dbFile as string, 'readwrite');
    try {
      // Kept open, this connection keeps its commits in the -wal file (no checkpoint on close).
      await writer.all(
        "INSERT INTO audit_log (at, actor, action, target) VALUES ('2026-11-20T00:00:00.000Z', 'test', 'wal.row', 'x')",
      );
      expect(existsSync(`${cli.dbFile}-wal`)).toBe(true);
      const writes = (async () => {
        for (let i = 0; i < 50; i++) {
          await writer.all(
            "INSERT INTO audit_log (at, actor, action, target) VALUES ('2026-11-20T00:00:00.000Z', 'test', 'busy', ?)",
            [String(i)],
          );
        }
      })();
      const target = path.join(cli.dir, 'backup.sqlite3');
      const r = await cli.run(['backup', target, '--json']);
      await writes;
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ file: target });
      expect(statSync(target).mode & 0o777).toBe(0o600);
      expect(await querySqlite(target, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(await querySqlite(target, "SELECT target FROM audit_log WHERE action = 'wal.row'")).toEqual([
        { target: 'x' },
      ]);
      expect(await querySqlite(target, 'SELECT username FROM accounts')).toEqual([{ username: 'root' }]);
    } finally {
      await writer.close();
    }
  });

  it('refuses to overwrite an existing file unless --force', async () => {
    const target = path.join(cli.dir, 'existing.sqlite3');
    await writeFile(target, 'keep me');
    const r = await cli.run(['backup', target]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/exists; give --force/);
    expect(statSync(target).size).toBe('keep me'.length);
    const forced = await cli.run(['backup', target, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await querySqlite(target, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  });

  it('refuses the database file itself as the target', async () => {
    const r = await cli.run(['backup', cli.dbFile as string, '--force']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the backup file is the database itself/);
    const names = await withSandboxDb(cli, async (db) => db('accounts').pluck('username'));
    expect(names).toEqual(['root']);
  });
});

describe.runIf(IS_PG)('backup on PostgreSQL', () => {
  const cli = useSandbox();

  it('refuses with exit status 2 and names pg_dump', async () => {
    const r = await cli.run(['backup', path.join(cli.dir, 'x.sqlite3')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pg_dump/);
    expect(existsSync(path.join(cli.dir, 'x.sqlite3'))).toBe(false);
  });
});
