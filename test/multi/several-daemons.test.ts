// Several daemons on one database (docs/cli.md#tokens and docs/http-api.md#access-rules): a change made with the CLI is applied by
// every daemon from its next request. Runs on the suite's backend: SQLite (daemons on one file,
// told through the signal file) and, when ARCHIVE_TEST_PG_URL is set, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccounts,
  createSandbox,
  createToken,
  IS_PG,
  type Sandbox,
  withSandboxDb,
  asAdministrator,
} from '../helpers/cli.js';
import { spawnDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/until.js';

describe(`two daemons on one ${IS_PG ? 'PostgreSQL' : 'SQLite'} database`, () => {
  let box: Sandbox;
  let a: RunningDaemon;
  let b: RunningDaemon;

  beforeAll(async () => {
    box = await createSandbox();
    await createAccounts(box, { root: 'superuser', reader: 'user' });
    [a, b] = await Promise.all([spawnDaemon(box), spawnDaemon(box)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await box?.cleanup();
  });

  const status = (d: RunningDaemon, path: string, token?: string) =>
    d.fetch(path, { headers: token ? { Authorization: `Bearer ${token}` } : {} }).then((r) => r.status);

  it("both apply a token's new scope, set with token update, on their next request", async () => {
    const t = await createToken(box, 'reader', 'narrowed later', 'root', ['--scope', 'read']);
    expect(await status(a, '/api/objects', t.token)).toBe(200);
    expect(await status(b, '/api/objects', t.token)).toBe(200);
    const r = await box.run(['token', 'update', t.id, '--scope', 'ai-usage', '--as', 'root']);
    expect(r.code, r.stderr).toBe(0);
    for (const d of [a, b]) {
      const refused = await d.fetch('/api/objects', { headers: { Authorization: `Bearer ${t.token}` } });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toBe(
        'Bearer realm="archive", error="insufficient_scope", scope="read"',
      );
    }
    expect((await box.run(['token', 'update', t.id, '--scope', 'read', '--as', 'root'])).code).toBe(0);
    expect(await status(b, '/api/objects', t.token)).toBe(200);
    expect(await status(a, '/api/objects', t.token)).toBe(200);
  });

  it('both refuse a token revoked with the CLI on their next request', async () => {
    const t = await createToken(box, 'reader', 'shared', 'root');
    expect(await status(a, '/api/objects', t.token)).toBe(200);
    expect(await status(b, '/api/objects', t.token)).toBe(200);
    expect((await box.run(['token', 'revoke', t.id, '--as', 'root'])).code).toBe(0);
    expect(await status(a, '/api/objects', t.token)).toBe(401);
    expect(await status(b, '/api/objects', t.token)).toBe(401);
  });

  it('both apply a settings change on their next request', async () => {
    expect(await status(a, '/api/actors')).toBe(401);
    expect(await status(b, '/api/actors')).toBe(401);
    await box.run(['settings', 'set', 'public_access', 'on', ...(await asAdministrator(box))]);
    expect(await status(a, '/api/actors')).toBe(200);
    expect(await status(b, '/api/actors')).toBe(200);
    await box.run(['settings', 'set', 'public_access', 'off', ...(await asAdministrator(box))]);
    expect(await status(a, '/api/actors')).toBe(401);
    expect(await status(b, '/api/actors')).toBe(401);
  });

  it('both apply role changes and account deletion on their next request', async () => {
    await createAccounts(box, { mover: 'user' });
    const t = await createToken(box, 'mover', 'roles', 'root');
    expect(await status(a, '/api/objects', t.token)).toBe(200);
    expect(await status(b, '/api/objects', t.token)).toBe(200);
    await box.run(['account', 'set-role', 'mover', 'blocked', ...(await asAdministrator(box))]);
    expect(await status(a, '/api/objects', t.token)).toBe(403);
    expect(await status(b, '/api/objects', t.token)).toBe(403);
    await box.run(['account', 'delete', 'mover', ...(await asAdministrator(box)), '--yes']);
    expect(await status(a, '/api/objects', t.token)).toBe(401);
    expect(await status(b, '/api/objects', t.token)).toBe(401);
  });

  it('records last used once for a token used on both daemons within a minute', async () => {
    const t = await createToken(box, 'reader', 'coalesced', 'root');
    for (let i = 0; i < 5; i++) {
      expect(await status(a, '/api/objects', t.token)).toBe(200);
      expect(await status(b, '/api/objects', t.token)).toBe(200);
    }
    const lastUsed = async () =>
      (await box.json<{ id: string; last_used: string | null }[]>(['token', 'list', 'reader'])).find(
        (x) => x.id === t.id,
      )?.last_used;
    await eventually(async () => (await lastUsed()) != null, 'last used to be written');
    expect(await lastUsed()).toMatch(/^\d{4}-/);
  });
});

describe(`daemons and the CLI starting at the same moment on an empty ${IS_PG ? 'PostgreSQL' : 'SQLite'} database`, () => {
  it('all come up and every migration runs once', async () => {
    const box = await createSandbox({ migrate: false });
    try {
      // Three daemons and two `migrate` processes race to create the schema of a new database
      // (only these two commands create one); afterwards the CLI reads it like any other.
      const [a, b, c, m1, m2] = await Promise.all([
        spawnDaemon(box),
        spawnDaemon(box),
        spawnDaemon(box),
        box.run(['migrate'], { spawn: true }),
        box.run(['migrate'], { spawn: true }),
      ]);
      try {
        for (const d of [a, b, c]) expect((await d.fetch('/api/objects')).status).toBe(401);
        expect(m1.code, m1.stderr).toBe(0);
        expect(m2.code, m2.stderr).toBe(0);
        const listed = await box.run(['account', 'list', '--json']);
        const settings = await box.run(['settings', '--json']);
        expect(listed.code, listed.stderr).toBe(0);
        expect(settings.code, settings.stderr).toBe(0);
        const stderr = m1.stderr + m2.stderr + listed.stderr + settings.stderr;
        expect(stderr + a.stderr() + b.stderr() + c.stderr()).not.toMatch(/lock|SQLITE_BUSY/i);
      } finally {
        await Promise.all([a.stop(), b.stop(), c.stop()]);
      }
      const names = await box.run(['migrate']);
      expect(names.code).toBe(0);
      expect(names.stderr).toMatch(/up to date/);
      const { readdirSync } = await import('node:fs');
      const files = readdirSync(new URL('../../migrations', import.meta.url)).filter((f) => f.endsWith('.js'));
      const applied = await appliedMigrations(box);
      expect(applied.sort()).toEqual(files.sort());
    } finally {
      await box.cleanup();
    }
  });
});

describe('a migration interrupted by a crash', () => {
  it('does not block the next start: a stale lock is taken over', async () => {
    const box = await createSandbox();
    try {
      // What a process killed while migrating leaves behind: knex's lock row set. The daemons
      // migration is made pending again, so that the next start has work to do.
      await withSandboxDb(box, async (db) => {
        await db('knex_migrations_lock').update({ is_locked: 1 });
        await db.schema.dropTable('daemons');
        await db('knex_migrations').where('name', 'like', '%daemons%').delete();
      });
      const d = await spawnDaemon(box);
      try {
        expect((await d.fetch('/api/objects')).status).toBe(401);
      } finally {
        await d.stop();
      }
      expect(await withSandboxDb(box, (db) => db.schema.hasTable('daemons'))).toBe(true);
    } finally {
      await box.cleanup();
    }
  });
});

/** The names in knex_migrations, read with the database's own client. */
async function appliedMigrations(box: Sandbox): Promise<string[]> {
  return withSandboxDb(box, async (db) =>
    (await db('knex_migrations').select<{ name: string }[]>('name')).map((r) => r.name),
  );
}
