// `copy-database [<postgres-url>]`: the target URL may hold a password, and a command line is
// visible to every user of the machine (ps, /proc/<pid>/cmdline). So the URL can also come from
// ARCHIVECTL_COPY_TO or, in a terminal, a prompt that does not echo it (PGPASSWORD is another
// way); a URL with a password given as the argument still works, with a note on stderr.
import { describe, expect, it } from 'vitest';
import { createSandbox, lines, PG_URL, pgAdmin, STACK_FRAME_RE, useSandbox } from '../helpers/cli.js';

const cli = useSandbox();
// Nothing listens on port 1: the copy fails at connecting, after the target has been chosen.
const CLOSED = 'postgres://archive:s3cretpw@127.0.0.1:1/archive';

describe.concurrent('copy-database: where the target comes from', () => {
  it('documents ARCHIVECTL_COPY_TO, the prompt and PGPASSWORD in --help', async () => {
    const r = await cli.run(['copy-database', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[postgres-url]');
    expect(r.stdout).toContain('ARCHIVECTL_COPY_TO');
    expect(r.stdout).toContain('PGPASSWORD');
    expect(r.stdout).toMatch(/prompt/);
    expect(r.stdout).toMatch(/visible/);
  });

  it('stops with exit 2 naming ARCHIVECTL_COPY_TO when there is no target and no terminal', async () => {
    const r = await cli.run(['copy-database']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('ARCHIVECTL_COPY_TO');
  });

  it('notes on stderr that a password in the command line is visible to other users, never echoing it', async () => {
    const r = await cli.run(['copy-database', CLOSED, '--yes']);
    expect(r.code).toBe(1); // nothing to connect to
    expect(r.stderr).toMatch(/password in the command line is visible to other users/);
    expect(r.stderr).toContain('ARCHIVECTL_COPY_TO');
    expect(r.stderr).not.toContain('s3cretpw');
    expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
  });

  it('adds no note for a URL without a password', async () => {
    const r = await cli.run(['copy-database', 'postgres://archive@127.0.0.1:1/archive', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/visible/);
  });

  it('takes the URL from ARCHIVECTL_COPY_TO without a note, never echoing it', async () => {
    const r = await cli.run(['copy-database', '--yes'], { env: { ARCHIVECTL_COPY_TO: CLOSED } });
    expect(r.code).toBe(1); // it tried to connect to it
    expect(r.stderr).not.toMatch(/visible/);
    expect(r.stderr).not.toContain('s3cretpw');
  });

  it('refuses an ARCHIVECTL_COPY_TO that is not a postgres:// URL (exit 2), without echoing it', async () => {
    const r = await cli.run(['copy-database', '--yes'], { env: { ARCHIVECTL_COPY_TO: 'mysql://root:hunter22@db/x' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('postgres://');
    expect(r.stderr).not.toContain('hunter22');
  });
});

describe.skipIf(!PG_URL)('copy-database to the database named by ARCHIVECTL_COPY_TO', () => {
  it('copies everything, as with the argument', async () => {
    const box = await createSandbox({ backend: 'sqlite' });
    const schema = `copy_env_target_${process.pid}`;
    try {
      await pgAdmin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pgAdmin(`CREATE SCHEMA "${schema}"`);
      const url = new URL(PG_URL as string);
      url.searchParams.set('options', `-c search_path=${schema}`);
      expect((await box.run(['account', 'create', 'root', '--role', 'superuser'])).code).toBe(0);
      const r = await box.run(['copy-database', '--json', '--yes'], { env: { ARCHIVECTL_COPY_TO: url.toString() } });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ accounts: 1 });
      const copied = await box.json<{ username: string }[]>(['account', 'list'], {
        env: { DATABASE_URL: url.toString() },
      });
      expect(copied.map((a) => a.username)).toEqual(['root']);
    } finally {
      await pgAdmin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await box.cleanup();
    }
  });
});
