// The token lifetime policy: `settings set token_max_days N|off`. While set, token create and
// token rotate without --expires end the token N days from today, a later --expires (or
// --no-expires) is refused, existing tokens keep their ends and doctor lists those beyond the
// policy; handoff and imported legacy tokens are outside it. Through the CLI's main().
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  allTokens,
  createAccounts,
  createToken,
  legacyValue,
  lines,
  useSandbox,
  type CreatedTokenJson,
  asAdministrator,
} from '../helpers/cli.js';
import { runInTerminal, waitFor } from '../terminal/cli-terminal.js';

const NOW = '2026-11-20T12:00:00Z';
/** 2026-11-20 + 90 days. */
const LIMIT = '2027-02-18';
const at = { now: NOW };

const cli = useSandbox();

interface Finding {
  check: string;
  status: string;
  detail: string;
}

async function doctorFinding(): Promise<Finding | undefined> {
  const r = await cli.run(['doctor', '--json'], at);
  return (JSON.parse(r.stdout) as Finding[]).find((f) => f.check === 'token lifetime');
}

const made: Record<string, CreatedTokenJson> = {};

beforeAll(async () => {
  await createAccounts(cli, { root: 'superuser', bot: 'editor', old: 'user' });
  // Made before the policy: one without an end, one ending far later than it will allow.
  made.forever = await createToken(cli, 'old', 'made before, no end', 'root', [], at);
  made.far = await createToken(cli, 'old', 'made before, ends 2030', 'root', ['--expires', '2030-01-01'], at);
  made.near = await createToken(cli, 'old', 'made before, ends soon', 'root', ['--expires', '2026-12-31'], at);
  const csv = path.join(cli.dir, 'legacy.csv');
  await writeFile(csv, `username,token,name\nold,${legacyValue()},imported\n`);
  expect((await cli.run(['token', 'import-legacy', csv, '--as', 'root'], at)).code).toBe(0);
});

describe('off (the default)', () => {
  it('is shown as null in settings --json and "off" in the table', async () => {
    expect((await cli.json<Record<string, unknown>>(['settings'])).token_max_days).toBeNull();
    expect((await cli.run(['settings'])).stdout).toMatch(/token_max_days\s+off/);
  });

  it('leaves a token without --expires without an end, and doctor says nothing about lifetimes', async () => {
    made.unpolicied = await createToken(cli, 'bot', 'no policy yet', 'root', [], at);
    expect(made.unpolicied.expires).toBeNull();
    expect(made.unpolicied).not.toHaveProperty('token_max_days');
    expect(await doctorFinding()).toBeUndefined();
  });
});

describe('settings set token_max_days', () => {
  it.each([['0'], ['-3'], ['1.5'], ['90d'], ['abc'], [''], ['36501'], ['OFF'], ['on']])(
    'refuses %j as a usage error (exit 2) and changes nothing',
    async (value) => {
      const before = await cli.json(['settings']);
      const audit = await cli.json<unknown[]>(['audit']);
      const r = await cli.run(['settings', 'set', 'token_max_days', value, '--json', ...(await asAdministrator(cli))]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toContain('token_max_days must be a whole number of days');
      expect(await cli.json(['settings'])).toEqual(before);
      expect(await cli.json<unknown[]>(['audit'])).toEqual(audit);
    },
  );

  it('sets a number of days, shown by settings and recorded in the audit log', async () => {
    const out = await cli.json<Record<string, unknown>>([
      'settings',
      'set',
      'token_max_days',
      '90',
      ...(await asAdministrator(cli)),
    ]);
    expect(out).toEqual({ public_api: false, public_access: false, token_max_days: 90 });
    expect((await cli.run(['settings'])).stdout).toMatch(/token_max_days\s+90/);
    const audit = await cli.json<{ action: string; target: string }[]>(['audit']);
    expect(audit.at(-1)).toMatchObject({ action: 'settings.set', target: 'token_max_days=90' });
  });
});

describe('while token_max_days is 90', () => {
  it('gives token create without --expires an end 90 days from today, said on stderr and in --json', async () => {
    const t = await createToken(cli, 'bot', 'ends by policy', 'root', [], at);
    expect(t.expires).toBe(LIMIT);
    expect((t as CreatedTokenJson & { token_max_days?: number }).token_max_days).toBe(90);
    expect(Object.keys(t).at(-1)).toBe('token_max_days');
    const human = await cli.run(['token', 'create', 'bot', '--name', 'ends by policy, told', '--as', 'root'], at);
    expect(human.code, human.stderr).toBe(0);
    expect(lines(human.stdout)).toHaveLength(1); // the value alone
    expect(human.stderr).toContain(`expires ${LIMIT}`);
    expect(human.stderr).toContain('token_max_days is 90');
  });

  it('says in the terminal question what an empty answer gives, and gives it', async () => {
    const run = runInTerminal(cli, ['token', 'create', 'bot', '--as', 'root', '--name', 'asked', '--json'], at);
    // The prompt wraps at the terminal's width: any run of white space may be a line break.
    const question = `(UTC; at most ${LIMIT}; empty: ${LIMIT}, as token_max_days is 90)?`;
    await waitFor(run, new RegExp(question.replace(/[()?]/g, '\\$&').replace(/ /g, '\\s+')));
    run.type('\r');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.slice(r.stdout.indexOf('{')))).toMatchObject({ expires: LIMIT, token_max_days: 90 });
  });

  it('accepts an --expires up to the limit, without the policy key', async () => {
    const t = await createToken(cli, 'bot', 'ends at the limit', 'root', ['--expires', LIMIT], at);
    expect(t.expires).toBe(LIMIT);
    expect(t).not.toHaveProperty('token_max_days');
    const sooner = await createToken(cli, 'bot', 'ends sooner', 'root', ['--expires', '2026-12-01'], at);
    expect(sooner.expires).toBe('2026-12-01');
  });

  it.each([
    [['--expires', '2027-02-19'], '2027-02-19 is too late'],
    [['--expires', '2038-01-18'], '2038-01-18 is too late'],
    [['--no-expires'], 'without an expiry date is not allowed'],
  ])('refuses token create %j with exit 1, naming the limit, creating nothing', async (extra, message) => {
    const before = await allTokens(cli, at);
    const r = await cli.run(['token', 'create', 'bot', '--name', 'too long', '--as', 'root', ...extra, '--json'], at);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain(`token_max_days is 90: new tokens end ${LIMIT} at the latest`);
    expect(await allTokens(cli, at)).toEqual(before);
  });

  it('never changes existing tokens', async () => {
    const list = await allTokens(cli, at);
    const expiresOf = (id: string) => list.find((t) => t.id === id)?.expires;
    expect(expiresOf((made.forever as CreatedTokenJson).id)).toBeNull();
    expect(expiresOf((made.far as CreatedTokenJson).id)).toBe('2030-01-01');
    expect(list.find((t) => t.kind === 'legacy')?.expires).toBeNull();
  });

  it('gives token rotate without --expires the policy end, and refuses a later --expires', async () => {
    const old = await createToken(cli, 'bot', 'rotated under policy', 'root', ['--expires', '2026-12-24'], at);
    const refused = await cli.run(['token', 'rotate', old.id, '--expires', '2030-01-01', '--as', 'root'], at);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('token_max_days is 90');
    expect((await allTokens(cli, at)).find((t) => t.id === old.id)?.status).toBe('active');
    const rotated = await cli.json<CreatedTokenJson>(['token', 'rotate', old.id, '--as', 'root'], at);
    expect(rotated).toMatchObject({ name: 'rotated under policy', expires: LIMIT, token_max_days: 90 });
    const chosen = await cli.json<CreatedTokenJson>(
      ['token', 'rotate', rotated.id, '--expires', '2027-01-31', '--as', 'root'],
      at,
    );
    expect(chosen.expires).toBe('2027-01-31');
    expect(chosen).not.toHaveProperty('token_max_days');
  });

  it('leaves handoff tokens at 12 hours', async () => {
    const h = await cli.json<CreatedTokenJson>(['token', 'handoff', 'bot', '--as', 'root'], at);
    expect(h.kind).toBe('handoff');
    expect(h.expires).toBe('2026-11-20'); // 12:00 + 12 h: refused from midnight
    expect(h).not.toHaveProperty('token_max_days');
  });

  it('leaves imported legacy tokens without an end', async () => {
    const csv = path.join(cli.dir, 'legacy-under-policy.csv');
    await writeFile(csv, `username,token,name\nbot,${legacyValue()},imported under policy\n`);
    expect((await cli.run(['token', 'import-legacy', csv, '--as', 'root'], at)).code).toBe(0);
    const imported = (await allTokens(cli, at)).find((t) => t.name === 'imported under policy');
    expect(imported).toMatchObject({ kind: 'legacy', expires: null });
  });

  it('makes doctor list the active regular tokens that end later than it allows (a warning)', async () => {
    const finding = await doctorFinding();
    expect(finding?.status).toBe('warn');
    const detail = finding?.detail ?? '';
    expect(detail).toContain(`token_max_days is 90 (a new token ends ${LIMIT} at the latest)`);
    expect(detail).toContain(`${(made.forever as CreatedTokenJson).id} "made before, no end" of old (never expires)`);
    expect(detail).toContain(
      `${(made.far as CreatedTokenJson).id} "made before, ends 2030" of old (expires 2030-01-01)`,
    );
    expect(detail).toContain(`${(made.unpolicied as CreatedTokenJson).id} "no policy yet" of bot (never expires)`);
    expect(detail).toContain('3 active token(s), made before it was set or tightened, end later');
    expect(detail).not.toContain((made.near as CreatedTokenJson).id);
    expect(detail).not.toContain('imported');
    const human = await cli.run(['doctor'], at);
    expect(human.stdout).toMatch(/warn\s+token lifetime/);
  });

  it('makes doctor say all is well once those tokens are revoked', async () => {
    for (const t of [made.forever, made.far, made.unpolicied] as CreatedTokenJson[])
      expect((await cli.run(['token', 'revoke', t.id, '--as', 'root'], at)).code).toBe(0);
    expect(await doctorFinding()).toMatchObject({ status: 'ok' });
  });
});

describe('turned off again', () => {
  it('gives tokens without --expires no end, and keeps those made under it', async () => {
    const out = await cli.json<Record<string, unknown>>([
      'settings',
      'set',
      'token_max_days',
      'off',
      ...(await asAdministrator(cli)),
    ]);
    expect(out.token_max_days).toBeNull();
    const t = await createToken(cli, 'bot', 'after the policy', 'root', [], at);
    expect(t.expires).toBeNull();
    expect((await allTokens(cli, at)).find((x) => x.name === 'ends by policy')?.expires).toBe(LIMIT);
    expect(await doctorFinding()).toBeUndefined();
  });
});
