// Two installations in schemas of their own in one PostgreSQL database (DATABASE_URL with
// `options=-c search_path=…`). NOTIFY reaches every session of a database, so a daemon must
// adopt only the access changes of its own installation: had daemon A taken installation B's
// higher generation for its own, a later revocation in A (a lower number) would go unnoticed
// and the revoked token would keep working. PostgreSQL only: SQLite files are never shared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createSandbox, createToken, IS_PG, pgAdmin, type Sandbox } from '../helpers/cli.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';

describe.skipIf(!IS_PG)('two installations in one PostgreSQL database', () => {
  let box: Sandbox;
  const installations: { env: Record<string, string>; daemon?: RunningDaemon }[] = [];
  const schemas = ['install_a', 'install_b'];

  const inSchema = (schema: string): Record<string, string> => {
    const url = new URL(box.env.DATABASE_URL ?? '');
    url.searchParams.set('options', `-c search_path=${schema}`);
    return { DATABASE_URL: url.toString() };
  };

  beforeAll(async () => {
    box = await createSandbox({ migrate: false });
    const db = new URL(box.env.DATABASE_URL ?? '').pathname.slice(1);
    for (const schema of schemas) {
      await pgAdmin(`CREATE SCHEMA ${schema}`, db);
      const env = inSchema(schema);
      expect((await box.run(['migrate'], { env })).code).toBe(0);
      installations.push({ env, daemon: await startDaemon(box, { env }) });
    }
  });
  afterAll(async () => {
    for (const i of installations) await i.daemon?.stop();
    await box?.cleanup();
  });

  it("a daemon ignores the other installation's access changes and still sees its own revocation", async () => {
    const [a, b] = installations as [(typeof installations)[0], (typeof installations)[0]];
    const inA = { env: a.env };
    await createAccounts(
      { run: (args, opts) => box.run(args, { ...opts, ...inA }) },
      { root: 'superuser', reader: 'user' },
    );
    const token = await createToken(
      { json: (args, opts) => box.json(args, { ...opts, ...inA }) },
      'reader',
      'probe',
      'root',
    );
    const get = () => a.daemon!.fetch('/api/actors', { headers: { authorization: `Bearer ${token.token}` } });
    expect((await get()).status).toBe(200);

    // Installation B moves its generation far past A's.
    for (let i = 0; i < 12; i++) {
      const r = await box.run(['settings', 'set', 'public_api', i % 2 === 0 ? 'on' : 'off'], { env: b.env });
      expect(r.code, r.stderr).toBe(0);
    }
    expect((await get()).status).toBe(200);

    const revoked = await box.run(['token', 'revoke', token.id, '--as', 'root'], inA);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await get()).status).toBe(401);
  });
});
