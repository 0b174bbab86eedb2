// One authority rule for every command that makes or removes tokens (docs/cli.md#tokens): only an admin
// or superuser acts, only a superuser for a superuser's tokens, no account for its own tokens
// (except a handoff for itself), and someone always acts (--as, ARCHIVECTL_AS, or a prompt in a
// terminal). Before this rule `token import-legacy … --as <a user>` imported a token of the
// superuser root with a value the importer chose, and `token handoff root` without --as minted a
// superuser token recorded as "system". A blocked account gets no new token.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  allTokens,
  createAccounts,
  createToken,
  legacyValue,
  lines,
  STACK_FRAME_RE,
  STAFF,
  useSandbox,
  type CliResult,
  type CreatedTokenJson,
  asAdministrator,
} from '../helpers/cli.js';

const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { ...STAFF, carol: 'user', fading: 'user' });
});

interface AuditEntry {
  actor: string;
  action: string;
  target: string;
}

function expectRefused(r: CliResult, code: 1 | 2, mentions: RegExp): void {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
  expect(r.stderr).toMatch(mentions);
}

function expectNoValue(r: CliResult, values: string[]): void {
  for (const v of values) {
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toContain(v);
      expect(text).not.toContain(v.slice(8));
    }
  }
}

async function tokenIds(): Promise<string[]> {
  return (await allTokens(cli)).map((t) => t.id);
}

const csv = (rows: [string, string, string][]) => `username,token,name\n${rows.map((r) => r.join(',')).join('\n')}\n`;

describe.concurrent('token import-legacy: the rule of token create, for every line', () => {
  it('stops with exit 2 naming --as when it is missing and there is no terminal, importing nothing', async () => {
    const value = legacyValue();
    const r = await cli.run(['token', 'import-legacy', '-'], { input: csv([['bob', value, 'no actor']]) });
    expectRefused(r, 2, /--as/);
    expect(lines(r.stderr)).toHaveLength(1);
    expectNoValue(r, [value]);
    expect(await tokenIds()).not.toContain(value.slice(0, 8));
  });

  it('takes ARCHIVECTL_AS in place of --as, and records that account', async () => {
    const value = legacyValue();
    const r = await cli.run(['token', 'import-legacy', '-', '--json'], {
      input: csv([['carol', value, 'via env']]),
      env: { ARCHIVECTL_AS: 'adam' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ imported: 1, skipped: 0 });
    const audit = await cli.json<AuditEntry[]>(['audit']);
    expect(audit.some((e) => e.actor === 'adam' && e.action === 'token.import-legacy')).toBe(true);
  });

  it.each([
    ['bob', 'user'],
    ['eddie', 'editor'],
    ['bert', 'blocked'],
  ])('refuses --as %s (%s) with exit 1, importing nothing', async (actor) => {
    const value = legacyValue();
    const r = await cli.run(['token', 'import-legacy', '-', '--as', actor], {
      input: csv([['carol', value, `by ${actor}`]]),
    });
    expectRefused(r, 1, new RegExp(`${actor}.*may not import`));
    expectNoValue(r, [value]);
    expect(await tokenIds()).not.toContain(value.slice(0, 8));
  });

  it("refuses an admin importing a superuser's token: the whole file, exit 1, naming the line, echoing no value", async () => {
    const values = [legacyValue(), legacyValue(), legacyValue()];
    const r = await cli.run(['token', 'import-legacy', '-', '--as', 'alice'], {
      input: csv([
        ['bob', values[0]!, 'fine'],
        ['root', values[1]!, 'chosen by alice'],
        ['carol', values[2]!, 'fine too'],
      ]),
    });
    expectRefused(r, 1, /\bline 3\b.*superuser root/);
    expect(r.stderr.match(/\bline \d+/g)).toEqual(['line 3']);
    expect(r.stderr).toContain('nothing was imported');
    expectNoValue(r, values);
    const ids = await tokenIds();
    for (const v of values) expect(ids).not.toContain(v.slice(0, 8));
  });

  it('refuses an admin importing a token for itself, importing nothing', async () => {
    const values = [legacyValue(), legacyValue()];
    const r = await cli.run(['token', 'import-legacy', '-', '--as', 'alice'], {
      input: csv([
        ['bob', values[0]!, 'ok'],
        ['alice', values[1]!, 'mine'],
      ]),
    });
    expectRefused(r, 1, /\bline 3\b.*its own tokens/);
    expectNoValue(r, values);
    const ids = await tokenIds();
    for (const v of values) expect(ids).not.toContain(v.slice(0, 8));
  });

  it("lets a superuser import another superuser's token, recorded as that superuser", async () => {
    const value = legacyValue();
    expect(
      await cli.json(['token', 'import-legacy', '-', '--as', 'sam'], { input: csv([['root', value, 'old root']]) }),
    ).toEqual({ imported: 1, skipped: 0 });
    expect((await allTokens(cli)).find((t) => t.id === value.slice(0, 8))).toMatchObject({
      account: 'root',
      kind: 'legacy',
    });
    const audit = await cli.json<AuditEntry[]>(['audit']);
    expect(audit.some((e) => e.actor === 'sam' && e.action === 'token.import-legacy')).toBe(true);
  });

  it('refuses an unknown --as account with exit 1', async () => {
    const value = legacyValue();
    expectRefused(
      await cli.run(['token', 'import-legacy', '-', '--as', 'nobody'], { input: csv([['bob', value, 'ghost']]) }),
      1,
      /nobody/,
    );
    expect(await tokenIds()).not.toContain(value.slice(0, 8));
  });
});

describe.concurrent('token handoff: someone acts, under the same rule', () => {
  it('stops with exit 2 naming --as when it is missing and there is no terminal, creating nothing', async () => {
    // sam gets no handoff token anywhere in this file.
    const r = await cli.run(['token', 'handoff', 'sam']);
    expectRefused(r, 2, /--as/);
    expect(lines(r.stderr)).toHaveLength(1);
    expect((await allTokens(cli)).filter((t) => t.account === 'sam')).toEqual([]);
  });

  it('lets a superuser hand off for itself, recorded as itself', async () => {
    const t = await cli.json<CreatedTokenJson>(['token', 'handoff', 'root', '--as', 'root']);
    expect(t).toMatchObject({ account: 'root', kind: 'handoff' });
    const audit = await cli.json<AuditEntry[]>(['audit']);
    expect(audit.some((e) => e.actor === 'root' && e.action === 'token.handoff' && e.target.includes(t.id))).toBe(true);
  });

  it('lets an admin hand off for a user, recorded as the admin', async () => {
    const t = await cli.json<CreatedTokenJson>(['token', 'handoff', 'carol', '--as', 'alice']);
    const audit = await cli.json<AuditEntry[]>(['audit']);
    expect(audit.some((e) => e.actor === 'alice' && e.action === 'token.handoff' && e.target.includes(t.id))).toBe(
      true,
    );
  });

  it('takes ARCHIVECTL_AS in place of --as', async () => {
    const r = await cli.run(['token', 'handoff', 'bob', '--json'], { env: { ARCHIVECTL_AS: 'bob' } });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as CreatedTokenJson).account).toBe('bob');
  });

  it('refuses an admin handing off for a superuser, an editor for another account, and a user for an admin', async () => {
    expectRefused(await cli.run(['token', 'handoff', 'sam', '--as', 'alice']), 1, /superuser sam/);
    expectRefused(await cli.run(['token', 'handoff', 'bob', '--as', 'eddie']), 1, /eddie \(editor\)/);
    expectRefused(await cli.run(['token', 'handoff', 'adam', '--as', 'carol']), 1, /carol \(user\)/);
    expect((await allTokens(cli)).filter((t) => t.kind === 'handoff' && ['sam', 'adam'].includes(t.account))).toEqual(
      [],
    );
  });

  it('refuses a blocked account handing off for itself', async () => {
    expectRefused(await cli.run(['token', 'handoff', 'bert', '--as', 'bert']), 1, /bert/);
    expect((await allTokens(cli)).filter((t) => t.account === 'bert')).toEqual([]);
  });
});

describe.concurrent('no new token for a blocked account', () => {
  it('refuses token create for a blocked account, naming it, creating nothing', async () => {
    expectRefused(
      await cli.run(['token', 'create', 'bert', '--name', 'for bert', '--as', 'root']),
      1,
      /bert is blocked/,
    );
    expect((await allTokens(cli)).filter((t) => t.account === 'bert')).toEqual([]);
  });

  it('refuses token rotate for an account blocked since its token was made', async () => {
    const t = await createToken(cli, 'fading', 'before the block', 'alice');
    expect((await cli.run(['account', 'set-role', 'fading', 'blocked', ...(await asAdministrator(cli))])).code).toBe(0);
    expectRefused(await cli.run(['token', 'rotate', t.id, '--as', 'alice']), 1, /fading is blocked/);
    expect((await allTokens(cli)).filter((x) => x.account === 'fading').map((x) => [x.id, x.status])).toEqual([
      [t.id, 'active'],
    ]);
    // Revoking stays possible.
    expect((await cli.json<{ status: string }>(['token', 'revoke', t.id, '--as', 'alice'])).status).toBe('revoked');
  });
});

describe('token prune records who pruned', () => {
  it('records the --as account', async () => {
    const t = await createToken(cli, 'carol', 'pruned by alice', 'adam');
    await cli.json(['token', 'revoke', t.id, '--as', 'adam']);
    const result = await cli.json<{ pruned: number }>(['token', 'prune', '--as', 'alice', '--yes']);
    expect(result.pruned).toBeGreaterThanOrEqual(1);
    const audit = await cli.json<AuditEntry[]>(['audit']);
    expect(audit.filter((e) => e.action === 'token.prune').at(-1)?.actor).toBe('alice');
  });

  it('needs an acting account without a terminal (exit 2), deleting nothing; ARCHIVECTL_AS names one', async () => {
    const t = await createToken(cli, 'carol', 'pruned by the sysadmin', 'adam');
    await cli.json(['token', 'revoke', t.id, '--as', 'adam']);
    const r = await cli.run(['token', 'prune', '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/missing --as/);
    expect(await tokenIds()).toContain(t.id);
    await cli.json(['token', 'prune', '--yes'], { env: { ARCHIVECTL_AS: 'alice' } });
    const audit = await cli.json<AuditEntry[]>(['audit']);
    expect(audit.filter((e) => e.action === 'token.prune').at(-1)?.actor).toBe('alice');
    expect(await tokenIds()).not.toContain(t.id);
  });

  it('refuses --as an account that may not manage tokens, deleting nothing', async () => {
    const t = await createToken(cli, 'carol', 'not pruned by bob', 'adam');
    await cli.json(['token', 'revoke', t.id, '--as', 'adam']);
    expectRefused(await cli.run(['token', 'prune', '--as', 'bob', '--yes']), 1, /bob \(user\) may not prune/);
    expect(await tokenIds()).toContain(t.id);
  });
});
