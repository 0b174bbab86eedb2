// docs/cli.md#tokens: `token handoff <username>` creates a 12-hour token of kind handoff; each handoff
// first deletes every handoff token whose 12 hours have passed. Someone always acts (--as): the
// account itself, or an admin or superuser allowed to manage its tokens (test/cli/authority).
import { beforeAll, describe, expect, it } from 'vitest';
import {
  allTokens,
  createAccounts,
  createToken,
  CREATED_TOKEN_KEYS,
  TOKEN_VALUE_RE,
  useSandbox,
  type CreatedTokenJson,
  type TokenJson,
} from '../helpers/cli.js';

const T0 = '2026-11-20T12:00:00Z';
const PLUS_6H = '2026-11-20T18:00:00Z';
const PLUS_11H59 = '2026-11-20T23:59:00Z';
const PLUS_12H = '2026-11-21T00:00:00Z';

const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, {
    alice: 'admin',
    root: 'superuser',
    bob: 'user',
    carol: 'user',
    dave: 'user',
    bert: 'blocked',
  });
});

const statusOf = async (id: string, now: string): Promise<string | undefined> =>
  (await allTokens(cli, { now })).find((t) => t.id === id)?.status;

describe('token handoff', () => {
  it('prints the value alone on stdout, and creates a token of kind handoff', async () => {
    const r = await cli.run(['token', 'handoff', 'bob', '--as', 'alice'], { now: T0 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^arc_[0-9A-Za-z]{54}\n$/);
    const value = r.stdout.trim();
    expect(r.stderr).not.toContain(value);
    const id = value.slice(4, 12);
    const listed = (await allTokens(cli, { now: T0 })).find((t) => t.id === id);
    expect(listed).toMatchObject({
      account: 'bob',
      kind: 'handoff',
      status: 'active',
      created: '2026-11-20T12:00:00.000Z',
    });
  });

  it('prints TOKEN plus "token" with --json', async () => {
    const t = await cli.json<CreatedTokenJson>(['token', 'handoff', 'carol', '--as', 'alice'], { now: T0 });
    expect(Object.keys(t)).toEqual([...CREATED_TOKEN_KEYS]);
    expect(t).toMatchObject({ account: 'carol', kind: 'handoff', status: 'active', last_used: null });
    expect(t.token).toMatch(TOKEN_VALUE_RE);
    expect(t.token.slice(4, 12)).toBe(t.id);
  });

  it('ends exactly 12 hours after the instant it names as its creation, however the clock moves meanwhile', async () => {
    let at = Date.parse(T0);
    const moving = { now: () => new Date((at += 700)) }; // every read of the clock is 0.7 s later
    const t = await cli.json<CreatedTokenJson>(['token', 'handoff', 'dave', '--as', 'alice'], { clock: moving });
    const end = Date.parse(t.created) + 12 * 3_600_000;
    expect(await statusOf(t.id, new Date(end - 1).toISOString())).toBe('active');
    expect(await statusOf(t.id, new Date(end).toISOString())).toBe('expired');
  });

  it('is valid for 12 hours: active at +11h59m, expired at +12h', async () => {
    const t = await cli.json<CreatedTokenJson>(['token', 'handoff', 'dave', '--as', 'alice'], { now: T0 });
    expect(await statusOf(t.id, PLUS_11H59)).toBe('active');
    expect(await statusOf(t.id, '2026-11-20T23:59:59.999Z')).toBe('active');
    expect(await statusOf(t.id, PLUS_12H)).toBe('expired');
    const plain = await cli.json<TokenJson[]>(['token', 'list', 'dave'], { now: PLUS_12H });
    expect(plain.map((x) => x.id)).not.toContain(t.id);
  });

  it('refuses an unknown account (exit 1) and a blocked account (exit 1)', async () => {
    const before = await allTokens(cli, { now: T0 });
    for (const who of ['nobody', 'bert']) {
      const r = await cli.run(['token', 'handoff', who, '--as', 'alice'], { now: T0 });
      expect(r.code, who).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(who);
    }
    expect(await allTokens(cli, { now: T0 })).toEqual(before);
  });

  it('lets an account hand off for itself with --as, and refuses a user acting for another account', async () => {
    const own = await cli.json<CreatedTokenJson>(['token', 'handoff', 'bob', '--as', 'bob'], { now: T0 });
    expect(own.account).toBe('bob');
    const before = await allTokens(cli, { now: T0 });
    const r = await cli.run(['token', 'handoff', 'carol', '--as', 'bob'], { now: T0 });
    expect(r.code).toBe(1);
    expect(await allTokens(cli, { now: T0 })).toEqual(before);
  });

  it('refuses an admin handing off for a superuser', async () => {
    const r = await cli.run(['token', 'handoff', 'root', '--as', 'alice'], { now: T0 });
    expect(r.code).toBe(1);
  });
});

describe('a handoff after the 12 hours have passed', () => {
  const box = useSandbox();
  const made: Record<string, CreatedTokenJson> = {};

  beforeAll(async () => {
    await createAccounts(box, { alice: 'admin', bob: 'user', carol: 'user', dave: 'user' });
    made.oldBob = await box.json<CreatedTokenJson>(['token', 'handoff', 'bob', '--as', 'alice'], { now: T0 });
    made.oldCarol = await box.json<CreatedTokenJson>(['token', 'handoff', 'carol', '--as', 'alice'], { now: T0 });
    made.recent = await box.json<CreatedTokenJson>(['token', 'handoff', 'carol', '--as', 'alice'], { now: PLUS_6H });
    made.regularExpired = await createToken(box, 'bob', 'regular, ends today', 'alice', ['--expires', '2026-11-20'], {
      now: T0,
    });
  });

  it('leaves the earlier handoff tokens alone before their 12 hours have passed', async () => {
    await box.json<CreatedTokenJson>(['token', 'handoff', 'dave', '--as', 'alice'], { now: PLUS_11H59 });
    const ids = (await allTokens(box, { now: PLUS_11H59 })).map((t) => t.id);
    expect(ids).toEqual(expect.arrayContaining([made.oldBob!.id, made.oldCarol!.id, made.recent!.id]));
  });

  it('deletes the expired handoff tokens of every account, keeps the unexpired ones', async () => {
    const before = await allTokens(box, { now: PLUS_12H });
    expect(before.find((t) => t.id === made.oldBob!.id)?.status).toBe('expired');
    expect(before.find((t) => t.id === made.oldCarol!.id)?.status).toBe('expired');

    const fresh = await box.json<CreatedTokenJson>(['token', 'handoff', 'dave', '--as', 'alice'], { now: PLUS_12H });

    const after = await allTokens(box, { now: PLUS_12H });
    const ids = after.map((t) => t.id);
    expect(ids).not.toContain(made.oldBob!.id);
    expect(ids).not.toContain(made.oldCarol!.id);
    expect(after.find((t) => t.id === made.recent!.id)?.status).toBe('active');
    expect(after.find((t) => t.id === fresh.id)?.status).toBe('active');
  });

  it('does not delete expired tokens of other kinds', async () => {
    const after = await allTokens(box, { now: PLUS_12H });
    expect(after.find((t) => t.id === made.regularExpired!.id)?.status).toBe('expired');
  });

  it('records handoffs in the audit log without their values', async () => {
    const r = await box.run(['audit', '--json']);
    expect(r.code).toBe(0);
    const audit = JSON.parse(r.stdout) as { actor: string; action: string; target: string }[];
    expect(audit.filter((e) => e.action === 'token.handoff').length).toBeGreaterThanOrEqual(5);
    for (const t of Object.values(made)) expect(r.stdout).not.toContain(t.token);
  });
});
