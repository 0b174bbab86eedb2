// docs/http-api.md#access-rules and docs/cli.md: `settings` / `settings set <public_api|public_access> <on|off>`, and the
// audit log of who did what (never a token value).
import os from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createAccounts,
  createToken,
  ISO_INSTANT_RE,
  lines,
  useSandbox,
  type CreatedTokenJson,
  asAdministrator,
} from '../helpers/cli.js';

interface AuditEntry {
  at: string;
  actor: string;
  action: string;
  target: string;
}

describe('settings set from several processes at once', () => {
  const cli = useSandbox();

  // A key not yet stored, set by several processes at the same moment: each must succeed (an
  // update-then-insert made all but one fail with "a concurrent change conflicts").
  it('succeeds in every one of them, and the setting ends as set', async () => {
    const as = await asAdministrator(cli);
    const runs = await Promise.all(
      Array.from({ length: 8 }, () =>
        cli.run(['settings', 'set', 'public_access', 'on', '--json', ...as], {
          spawn: true,
        }),
      ),
    );
    expect(runs.map((r) => (r.code === 0 ? 'ok' : r.stderr))).toEqual(Array(8).fill('ok'));
    expect(await cli.json(['settings'])).toEqual({ public_api: false, public_access: true, token_max_days: null });
  });
});

describe('settings', () => {
  const cli = useSandbox();

  it('are both off on a fresh installation', async () => {
    expect(await cli.json(['settings'])).toEqual({ public_api: false, public_access: false, token_max_days: null });
  });

  it('settings set public_api on → {"public_api": true, "public_access": false}, and it stays set', async () => {
    const out = await cli.json<Record<string, boolean>>([
      'settings',
      'set',
      'public_api',
      'on',
      ...(await asAdministrator(cli)),
    ]);
    expect(Object.keys(out)).toEqual(['public_api', 'public_access', 'token_max_days']);
    expect(out).toEqual({ public_api: true, public_access: false, token_max_days: null });
    expect(await cli.json(['settings'])).toEqual({ public_api: true, public_access: false, token_max_days: null });
  });

  it('settings set public_access on, then off', async () => {
    expect(await cli.json(['settings', 'set', 'public_access', 'on', ...(await asAdministrator(cli))])).toEqual({
      public_api: true,
      public_access: true,
      token_max_days: null,
    });
    expect(await cli.json(['settings', 'set', 'public_access', 'off', ...(await asAdministrator(cli))])).toEqual({
      public_api: true,
      public_access: false,
      token_max_days: null,
    });
  });

  it('shows a table without --json', async () => {
    const r = await cli.run(['settings']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/public_api\W+on/);
    expect(r.stdout).toMatch(/public_access\W+off/);
  });

  it.each([
    ['public_apis', 'on'],
    ['debug', 'on'],
    ['public_api', 'yes'],
    ['public_api', 'true'],
    ['public_access', '1'],
    ['public_access', 'ON'],
  ])('refuses settings set %s %s as a usage error (exit 2) and changes nothing', async (name, value) => {
    const before = await cli.json(['settings']);
    const auditBefore = await cli.json<AuditEntry[]>(['audit']);
    const r = await cli.run(['settings', 'set', name, value, '--json', ...(await asAdministrator(cli))]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error: the (setting|value) must be one of .*, got "/);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toHaveLength(1);
    expect(await cli.json(['settings'])).toEqual(before);
    expect(await cli.json<AuditEntry[]>(['audit'])).toEqual(auditBefore);
  });

  it('are reflected by routes: GET /api/objects is open while public_api is on', async () => {
    type Row = { method: string; path: string; open: boolean };
    const objects = (rows: Row[]) => rows.find((r) => r.method === 'GET' && r.path === '/api/objects')?.open;
    expect(objects(await cli.json<Row[]>(['routes']))).toBe(true);
    await cli.json(['settings', 'set', 'public_api', 'off', ...(await asAdministrator(cli))]);
    expect(objects(await cli.json<Row[]>(['routes']))).toBe(false);
  });
});

describe('audit', () => {
  const cli = useSandbox();
  const values: string[] = [];
  let created: CreatedTokenJson;
  let rotated: CreatedTokenJson;

  beforeAll(async () => {
    await createAccounts(cli, { alice: 'admin', root: 'superuser', bob: 'user' });
    created = await createToken(cli, 'bob', 'audited', 'alice');
    const other = await createToken(cli, 'bob', 'to revoke', 'root');
    await cli.json(['token', 'revoke', other.id, '--as', 'alice']);
    rotated = await cli.json<CreatedTokenJson>(['token', 'rotate', created.id, '--as', 'root']);
    const handoff = await cli.json<CreatedTokenJson>(['token', 'handoff', 'bob', '--as', 'bob']);
    await cli.json(['settings', 'set', 'public_access', 'on', '--as', 'alice']);
    await cli.json(['account', 'set-role', 'bob', 'editor', '--as', 'root']);
    values.push(created.token, other.token, rotated.token, handoff.token);
  });

  it('records the acting account with each action, the operating-system user for the first account', async () => {
    const audit = await cli.json<AuditEntry[]>(['audit']);
    const has = (actor: string, action: string, target?: string) =>
      audit.some(
        (e) => e.actor === actor && e.action === action && (target === undefined || e.target.includes(target)),
      );
    // The first account of the installation is made by whoever ran the command on this machine;
    // it then acts for the others (test/helpers/cli.ts createAccounts).
    const osUser = `os:${os.userInfo().username}`;
    expect(has(osUser, 'account.create', 'root')).toBe(true);
    expect(has('root', 'account.create', 'alice')).toBe(true);
    expect(has('root', 'account.create', 'bob')).toBe(true);
    expect(has('alice', 'token.create', created.id)).toBe(true);
    expect(has('alice', 'token.revoke')).toBe(true);
    expect(has('root', 'token.rotate', created.id)).toBe(true);
    expect(has('root', 'token.rotate', rotated.id)).toBe(true);
    expect(has('bob', 'token.handoff')).toBe(true);
    expect(has('alice', 'settings.set', 'public_access')).toBe(true);
    expect(audit.some((e) => e.actor === 'system')).toBe(false);
    expect(has('root', 'account.set-role', 'bob')).toBe(true);
    for (const e of audit) expect(e.at).toMatch(ISO_INSTANT_RE);
  });

  it('settings set records the --as account (or ARCHIVECTL_AS), which must be an admin or superuser', async () => {
    await cli.json(['settings', 'set', 'public_api', 'on', '--as', 'alice']);
    await cli.json(['settings', 'set', 'public_api', 'off'], {
      env: { ARCHIVECTL_AS: 'root' },
    });
    const audit = await cli.json<AuditEntry[]>(['audit']);
    const settings = audit.filter((e) => e.action === 'settings.set').slice(-2);
    expect(settings.map((e) => [e.actor, e.target])).toEqual([
      ['alice', 'public_api=on'],
      ['root', 'public_api=off'],
    ]);
    for (const [as, message] of [
      ['bob', /bob \(editor\) may not change settings/],
      ['nobody-here', /no account named "nobody-here"/],
    ] as const) {
      const r = await cli.run(['settings', 'set', 'public_api', 'on', '--as', as, '--json']);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(await cli.json(['settings'])).toMatchObject({ public_api: false });
    }
    expect((await cli.json<AuditEntry[]>(['audit'])).length).toBe(audit.length);
  });

  it('lists entries oldest first', async () => {
    const at = (await cli.json<AuditEntry[]>(['audit'])).map((e) => e.at);
    expect([...at].sort()).toEqual(at);
  });

  it('never shows a token value or its secret, in JSON or in the table', async () => {
    for (const args of [['audit', '--json'], ['audit']]) {
      const r = await cli.run(args);
      expect(r.code).toBe(0);
      for (const v of values) {
        expect(r.stdout).not.toContain(v);
        expect(r.stdout).not.toContain(v.slice(12, 52));
      }
    }
  });

  it('refuses --since with a bad date as a usage error (exit 2)', async () => {
    for (const since of ['2026-02-30', 'yesterday', '2026-13-01', '20261120']) {
      const r = await cli.run(['audit', '--since', since, '--json']);
      expect(r.code, since).toBe(2);
      expect(r.stderr).toBe(`error: --since must be a date YYYY-MM-DD, got "${since}"\n`);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('--since');
      expect(lines(r.stderr)).toHaveLength(1);
    }
  });

  it('--since keeps only entries from that UTC day on', async () => {
    await cli.json(['settings', 'set', 'public_api', 'on', '--as', 'root'], {
      now: '2026-11-20T23:59:59Z',
    });
    await cli.json(['settings', 'set', 'public_api', 'off', '--as', 'root'], {
      now: '2026-11-21T00:00:00Z',
    });
    const since = await cli.json<AuditEntry[]>(['audit', '--since', '2026-11-21']);
    expect(since.every((e) => e.at >= '2026-11-21T00:00:00.000Z')).toBe(true);
    expect(since.some((e) => e.at === '2026-11-21T00:00:00.000Z' && e.target === 'public_api=off')).toBe(true);
    expect(since.some((e) => e.at === '2026-11-20T23:59:59.000Z')).toBe(false);
    const all = await cli.json<AuditEntry[]>(['audit']);
    expect(all.some((e) => e.at === '2026-11-20T23:59:59.000Z' && e.target === 'public_api=on')).toBe(true);
  });
});
