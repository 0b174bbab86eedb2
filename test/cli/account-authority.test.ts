// Account commands record who acted and follow the role rules (docs/http-api.md#access-rules): with --as (or
// ARCHIVECTL_AS) the acting account must be an admin or superuser, and only a superuser creates
// a superuser, makes an account superuser, or changes or deletes a superuser. While there is no
// account at all (the first account of an installation) the operating-system user acts and the
// audit log names it, os:<name>; once there is one, a missing --as is a usage error (exit 2).
// The last superuser is never demoted or deleted, also not by two commands at the same time.
import os from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createAccounts,
  STAFF,
  createSandbox,
  lines,
  STACK_FRAME_RE,
  useSandbox,
  type CliResult,
  type Sandbox,
  asAdministrator,
} from '../helpers/cli.js';

interface AuditEntry {
  actor: string;
  action: string;
  target: string;
}
interface AccountJson {
  username: string;
  role: string;
}

const OS_ACTOR = `os:${os.userInfo().username}`;

function expectRefused(r: CliResult, mentions: RegExp): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
  expect(lines(r.stderr)).toHaveLength(1);
  expect(r.stderr).toMatch(mentions);
}

async function roleOf(box: Pick<Sandbox, 'json'>, username: string): Promise<string | undefined> {
  return (await box.json<AccountJson[]>(['account', 'list'])).find((a) => a.username === username)?.role;
}

async function lastAudit(box: Pick<Sandbox, 'json'>, action: string, target: string): Promise<AuditEntry | undefined> {
  return (await box.json<AuditEntry[]>(['audit']))
    .filter((e) => e.action === action && e.target.includes(target))
    .at(-1);
}

describe.concurrent('account commands and the acting account', () => {
  const cli = useSandbox();

  beforeAll(async () => {
    await createAccounts(cli, STAFF);
  });

  it('records the --as account for create, set-role and delete', async () => {
    await cli.json(['account', 'create', 'hired', '--role', 'user', '--as', 'alice']);
    expect((await lastAudit(cli, 'account.create', 'hired'))?.actor).toBe('alice');
    await cli.json(['account', 'set-role', 'hired', 'editor', '--as', 'alice']);
    expect((await lastAudit(cli, 'account.set-role', 'hired'))?.actor).toBe('alice');
    await cli.json(['account', 'delete', 'hired', '--as', 'root', '--yes']);
    expect((await lastAudit(cli, 'account.delete', 'hired'))?.actor).toBe('root');
  });

  it('takes ARCHIVECTL_AS in place of --as', async () => {
    const r = await cli.run(['account', 'create', 'viaenv', '--role', 'user', '--json'], {
      env: { ARCHIVECTL_AS: 'alice' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect((await lastAudit(cli, 'account.create', 'viaenv'))?.actor).toBe('alice');
    expectRefused(
      await cli.run(['account', 'create', 'viaenv2', '--role', 'user'], { env: { ARCHIVECTL_AS: 'bob' } }),
      /bob \(user\)/,
    );
  });

  it('refuses an --as account that does not exist, changing nothing', async () => {
    expectRefused(await cli.run(['account', 'create', 'ghostmade', '--role', 'user', '--as', 'nobody']), /nobody/);
    expect(await roleOf(cli, 'ghostmade')).toBeUndefined();
  });

  it.each([
    ['bob', 'user'],
    ['eddie', 'editor'],
    ['bert', 'blocked'],
  ])('refuses --as %s (%s) for create, set-role and delete, changing nothing', async (actor, role) => {
    const mentions = new RegExp(`${actor} \\(${role}\\) may not change accounts`);
    expectRefused(await cli.run(['account', 'create', `by-${actor}`, '--role', 'user', '--as', actor]), mentions);
    expect(await roleOf(cli, `by-${actor}`)).toBeUndefined();
    expectRefused(await cli.run(['account', 'set-role', 'bob', 'admin', '--as', actor]), mentions);
    expect(await roleOf(cli, 'bob')).toBe('user');
    expectRefused(await cli.run(['account', 'delete', 'eddie', '--as', actor, '--yes']), mentions);
    expect(await roleOf(cli, 'eddie')).toBe('editor');
  });

  it('refuses an admin creating a superuser; lets a superuser', async () => {
    expectRefused(
      await cli.run(['account', 'create', 'su-by-alice', '--role', 'superuser', '--as', 'alice']),
      /alice \(admin\) may not create a superuser/,
    );
    expect(await roleOf(cli, 'su-by-alice')).toBeUndefined();
    await cli.json(['account', 'create', 'su-by-root', '--role', 'superuser', '--as', 'root']);
    expect(await roleOf(cli, 'su-by-root')).toBe('superuser');
  });

  it('refuses an admin making an account superuser (itself included); lets a superuser', async () => {
    await createAccounts(cli, { climber: 'admin' });
    expectRefused(
      await cli.run(['account', 'set-role', 'climber', 'superuser', '--as', 'alice']),
      /make an account superuser/,
    );
    expectRefused(
      await cli.run(['account', 'set-role', 'alice', 'superuser', '--as', 'alice']),
      /make an account superuser/,
    );
    expect(await roleOf(cli, 'climber')).toBe('admin');
    expect(await roleOf(cli, 'alice')).toBe('admin');
    await cli.json(['account', 'set-role', 'climber', 'superuser', '--as', 'sam']);
    expect(await roleOf(cli, 'climber')).toBe('superuser');
  });

  it("refuses an admin changing a superuser's role or deleting a superuser", async () => {
    expectRefused(await cli.run(['account', 'set-role', 'sam', 'blocked', '--as', 'alice']), /superuser sam/);
    expectRefused(await cli.run(['account', 'delete', 'sam', '--as', 'alice', '--yes']), /superuser sam/);
    expect(await roleOf(cli, 'sam')).toBe('superuser');
  });

  it('lets an admin change the role of and delete accounts that are not superusers', async () => {
    await createAccounts(cli, { temp: 'user' });
    await cli.json(['account', 'set-role', 'temp', 'blocked', '--as', 'alice']);
    expect(await roleOf(cli, 'temp')).toBe('blocked');
    await cli.json(['account', 'delete', 'temp', '--as', 'alice', '--yes']);
    expect(await roleOf(cli, 'temp')).toBeUndefined();
  });
});

describe('the last superuser', () => {
  const cli = useSandbox();

  beforeAll(async () => {
    await createAccounts(cli, { root: 'superuser', alice: 'admin' });
  });

  it('is never demoted, even without --as: exit 1, a clear message, nothing changed', async () => {
    const audit = await cli.json<AuditEntry[]>(['audit']);
    for (const role of ['admin', 'user', 'blocked']) {
      expectRefused(
        await cli.run(['account', 'set-role', 'root', role, ...(await asAdministrator(cli))]),
        /root is the last superuser/,
      );
      expectRefused(await cli.run(['account', 'set-role', 'root', role, '--as', 'root']), /root is the last superuser/);
    }
    expect(await roleOf(cli, 'root')).toBe('superuser');
    expect(await cli.json<AuditEntry[]>(['audit'])).toEqual(audit);
  });

  it('is never deleted, even by itself', async () => {
    expectRefused(
      await cli.run(['account', 'delete', 'root', ...(await asAdministrator(cli)), '--yes']),
      /root is the last superuser/,
    );
    expectRefused(await cli.run(['account', 'delete', 'root', '--as', 'root', '--yes']), /root is the last superuser/);
    expect(await roleOf(cli, 'root')).toBe('superuser');
  });

  it('may be demoted once there is another superuser, which then is the last', async () => {
    await cli.json(['account', 'create', 'heir', '--role', 'superuser', '--as', 'root']);
    await cli.json(['account', 'set-role', 'root', 'admin', '--as', 'heir']);
    expect(await roleOf(cli, 'root')).toBe('admin');
    expectRefused(
      await cli.run(['account', 'delete', 'heir', ...(await asAdministrator(cli)), '--yes']),
      /heir is the last superuser/,
    );
    expect(await roleOf(cli, 'heir')).toBe('superuser');
  });
});

describe('the first account of an installation', () => {
  let box: Sandbox;

  beforeAll(async () => {
    box = await createSandbox();
    return () => box.cleanup();
  });

  it('is made by the operating-system user (os:<name>); after it, every change needs --as (exit 2)', async () => {
    await box.json(['account', 'create', 'first', '--role', 'superuser']);
    expect((await lastAudit(box, 'account.create', 'first'))?.actor).toBe(OS_ACTOR);
    for (const args of [
      ['account', 'create', 'second', '--role', 'user'],
      ['account', 'set-role', 'first', 'admin'],
      ['account', 'delete', 'first', '--yes'],
      ['settings', 'set', 'public_api', 'on'],
      ['token', 'prune', '--yes'],
    ]) {
      const r = await box.run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/^error: missing --as <username> \(or ARCHIVECTL_AS\)/);
    }
    expect(await box.json<AccountJson[]>(['account', 'list'])).toEqual([
      { username: 'first', role: 'superuser', tokens: 0 },
    ]);
    expect(await box.json(['settings'])).toMatchObject({ public_api: false });
  });
});

describe('the last superuser, with two commands at the same time', () => {
  let box: Sandbox;

  beforeAll(async () => {
    box = await createSandbox();
    await createAccounts(box, { first: 'superuser' });
    return () => box.cleanup();
  });

  it('keeps one superuser when the only two are demoted or deleted at once', async () => {
    let survivor = 'first';
    for (let round = 1; round <= 4; round++) {
      const other = `second${round}`;
      await box.json(['account', 'create', other, '--role', 'superuser', '--as', survivor]);
      // Alternate demotion and deletion, each racing against the demotion of the other one; each
      // superuser acts on the other, so the one that comes second is refused either as the last
      // superuser or because its acting account is no longer a superuser.
      const [a, b] = await Promise.all([
        box.run(['account', 'set-role', survivor, 'admin', '--as', other]),
        box.run(
          round % 2 === 0
            ? ['account', 'delete', other, '--as', survivor, '--yes']
            : ['account', 'set-role', other, 'admin', '--as', survivor],
        ),
      ]);
      expect([a.code, b.code].sort(), `${a.stderr}\n${b.stderr}`).toEqual([0, 1]);
      const loser = a.code === 1 ? a : b;
      expect(loser.stderr).toMatch(/is the last superuser|may not (change|delete)|no account named/);
      const superusers = (await box.json<AccountJson[]>(['account', 'list'])).filter((x) => x.role === 'superuser');
      expect(superusers).toHaveLength(1);
      survivor = superusers[0]!.username;
    }
  });
});
