// The SQLite file holds token hashes and the audit log. It is created with mode 0600; one
// copied, restored or created by hand may be readable by others. Then every command that opens
// it warns on stderr, once, naming the file, its mode and the fix; databaseFileWarning (for the
// daemon to log) says the same.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseFileWarning } from '../../src/db/connect.js';
import { childEnv, IS_PG, lines, runRaw, useSandbox } from '../helpers/cli.js';

describe.skipIf(IS_PG)('a database file readable by others', () => {
  const cli = useSandbox();

  // Modes that let others write it are refused (file-trust.test.ts).
  it.each([0o644, 0o640, 0o604])(
    'warns on stderr once for mode %o, naming the file, the mode and chmod 600',
    async (mode) => {
      const file = cli.dbFile as string;
      await chmod(file, mode);
      try {
        const r = await cli.run(['account', 'list', '--json']);
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toEqual([]); // stdout stays data
        const octal = mode.toString(8).padStart(4, '0');
        const warnings = lines(r.stderr).filter((l) => l.startsWith('warning:'));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(file);
        expect(warnings[0]).toContain(`mode ${octal}`);
        expect(warnings[0]).toContain(`chmod 600 ${file}`);
      } finally {
        await chmod(file, 0o600);
      }
    },
  );

  it('warns for migrate and for a token command too', async () => {
    const file = cli.dbFile as string;
    await chmod(file, 0o644);
    try {
      for (const args of [['migrate'], ['token', 'list']]) {
        const r = await cli.run(args);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toContain(`${file} has mode 0644`);
      }
    } finally {
      await chmod(file, 0o600);
    }
  });

  it('says nothing about a file of mode 0600', async () => {
    const r = await cli.run(['account', 'list']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('warning');
  });
});

describe('databaseFileWarning', () => {
  const cli = useSandbox();

  it.skipIf(IS_PG)('returns the warning for a readable file, null for mode 0600', async () => {
    const filename = cli.dbFile as string;
    const config = { database: { client: 'sqlite3' as const, filename, busyTimeoutMs: 5000 } };
    expect(databaseFileWarning(config)).toBeNull();
    await chmod(filename, 0o640);
    try {
      expect(databaseFileWarning(config)).toMatch(
        new RegExp(`${filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} has mode 0640.*chmod 600`),
      );
    } finally {
      await chmod(filename, 0o600);
    }
  });

  it('returns null for a file that does not exist yet (it is created with mode 0600) and for PostgreSQL', () => {
    expect(
      databaseFileWarning({
        database: { client: 'sqlite3', filename: path.join(cli.dir, 'absent.sqlite3'), busyTimeoutMs: 5000 },
      }),
    ).toBeNull();
    expect(
      databaseFileWarning({ database: { client: 'pg', url: 'postgres://x@127.0.0.1/x', pool: { min: 0, max: 1 } } }),
    ).toBeNull();
  });
});

describe.skipIf(IS_PG)('a file that is not a SQLite database', () => {
  it('ends the command with one error line: no node warning beside it, no stack', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-notadb-'));
    try {
      await writeFile(path.join(dir, 'archive.sqlite3'), Buffer.alloc(8192, 'not a database '), { mode: 0o600 });
      await writeFile(path.join(dir, 'config.json'), JSON.stringify({ database: { filename: './archive.sqlite3' } }));
      const r = await runRaw(['--config', path.join(dir, 'config.json'), 'token', 'list'], {
        env: childEnv(),
        cwd: dir,
      });
      expect(r.code).toBe(1);
      expect(lines(r.stderr)).toEqual(['error: SQLITE_NOTADB: file is not a database']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
