// The product's clock cannot be pinned from outside. ARCHIVECTL_NOW used to set the CLI's clock:
// with it, anyone able to run the CLI made a "12-hour" handoff token valid until 2037 or wrote
// back-dated audit entries. It no longer exists; tests pin the clock by calling main(argv, io)
// in-process (test/helpers/cli.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, useSandbox, type CreatedTokenJson, asAdministrator } from '../helpers/cli.js';

const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { alice: 'admin', bob: 'user' });
});

const FUTURE = { ARCHIVECTL_NOW: '2037-12-31T00:00:00Z' };
const PAST = { ARCHIVECTL_NOW: '2020-01-01T00:00:00Z' };
const HOUR = 3_600_000;

/** Runs a command that creates a token, returning it with the real time around the run. */
async function timed(args: string[], env: Record<string, string>) {
  const before = Date.now();
  const r = await cli.run([...args, '--json'], { env });
  const after = Date.now();
  expect(r.code, r.stderr).toBe(0);
  return { token: JSON.parse(r.stdout) as CreatedTokenJson, before, after };
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe.concurrent('ARCHIVECTL_NOW in the environment', () => {
  it('does not change the created time of a token', async () => {
    for (const env of [FUTURE, PAST]) {
      const { token, before, after } = await timed(
        ['token', 'create', 'bob', '--name', `created ${env.ARCHIVECTL_NOW}`, '--as', 'alice'],
        env,
      );
      const created = Date.parse(token.created);
      expect(created).toBeGreaterThanOrEqual(before - 1000);
      expect(created).toBeLessThanOrEqual(after + 1000);
    }
  });

  it('gives a handoff token its real 12 hours, not 12 hours from a pinned instant', async () => {
    const { token, before, after } = await timed(['token', 'handoff', 'bob', '--as', 'alice'], FUTURE);
    expect(Date.parse(token.created)).toBeGreaterThanOrEqual(before - 1000);
    // The last UTC day on which it is accepted: that of (creation + 12 h - 1 ms).
    expect([utcDay(before + 12 * HOUR - 1), utcDay(after + 12 * HOUR - 1)]).toContain(token.expires);
    const listed = await cli.json<CreatedTokenJson[]>(['token', 'list', 'bob']);
    expect(listed.find((t) => t.id === token.id)?.status).toBe('active');
  });

  it('does not make a past expiry date acceptable', async () => {
    const r = await cli.run(
      ['token', 'create', 'bob', '--name', 'back then', '--expires', '2020-01-02', '--as', 'alice'],
      { env: PAST },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--expires must be today');
  });

  it('does not back-date audit entries', async () => {
    const before = Date.now();
    const r = await cli.run(['settings', 'set', 'public_api', 'on', '--json', ...(await asAdministrator(cli))], {
      env: PAST,
    });
    const after = Date.now();
    expect(r.code, r.stderr).toBe(0);
    const audit = await cli.json<{ at: string; action: string; target: string }[]>(['audit']);
    const entry = audit.filter((e) => e.action === 'settings.set' && e.target === 'public_api=on').at(-1);
    expect(entry).toBeDefined();
    expect(Date.parse(entry!.at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(entry!.at)).toBeLessThanOrEqual(after + 1000);
    expect(audit.some((e) => e.at.startsWith('2020-') || e.at.startsWith('2037-'))).toBe(false);
  });
});
