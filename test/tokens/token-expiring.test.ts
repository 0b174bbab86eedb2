// Tokens about to end (src/domain/tokens/expiring.ts) through its exported functions, on a
// sandbox database administered with the CLI and tokens used through a real authenticator: the
// counts /metrics shows, the tokens the daily notice names and in which order, and ExpiryNotices'
// claim of a day, its ten-minute timer and stop. The daemon's side (log lines, /metrics, several
// daemons) is test/auth/token-expiry-notices.test.ts.
import type { Knex } from 'knex';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { expiringCounts, ExpiryNotices, tokensToNotice, type ExpiryNotice } from '../../src/domain/tokens/expiring.js';
import { Authenticator } from '../../src/domain/tokens/authenticate.js';
import { LastUsedRecorder } from '../../src/domain/tokens/last-used.js';
import {
  createAccounts,
  createSandbox,
  createToken,
  openSandboxDb,
  type CreatedTokenJson,
  type Sandbox,
} from '../helpers/cli.js';

const DAY = 86_400_000;
const T0 = Date.parse('2030-03-01T08:00:00.000Z');
let now = T0;
const clock = { now: () => new Date(now) };
const MESSAGE = 'token expires within 14 days and is in use: rotate it';

let box: Sandbox;
let db: Knex;
const made: Record<string, CreatedTokenJson> = {};
const ctx = () => ({ db, clock });

/** The last day a token made at T0 is accepted, `days` days on. */
const dayIn = (days: number) => new Date(T0 + days * DAY).toISOString().slice(0, 10);
/** Its Token-Expiration: the next midnight. */
const endOf = (day: string) => `${new Date(Date.parse(`${day}T00:00:00Z`) + DAY).toISOString().slice(0, 19)}Z`;

beforeAll(async () => {
  box = await createSandbox();
  // Made in the opposite order of the notice's (end, then account name): zed before amy, the
  // later end first, so that rows read in the order they were written come out wrong.
  await createAccounts(box, { root: 'superuser', zed: 'user', amy: 'editor' });
  const create = async (key: string, user: string, days: number) => {
    made[key] = await createToken(box, user, key, 'root', ['--expires', dayIn(days)], {
      now: new Date(T0).toISOString(),
    });
  };
  await create('zedIn12', 'zed', 12);
  await create('amyIn12', 'amy', 12);
  await create('amyIn40', 'amy', 40);
  await create('unusedIn3', 'amy', 3);
  await create('amyIn3', 'amy', 3);
  db = await openSandboxDb(box);
  // Used as a daemon uses them: authenticated, the use recorded and flushed.
  const recorder = new LastUsedRecorder(db, clock);
  const auth = new Authenticator(db, clock, recorder);
  for (const key of ['zedIn12', 'amyIn12', 'amyIn40', 'amyIn3'])
    expect((await auth.authenticate((made[key] as CreatedTokenJson).token, '1', 'test', '127.0.0.1')).ok).toBe(true);
  await recorder.flush();
});

afterEach(() => {
  vi.useRealTimers();
  now = T0;
});

afterAll(async () => {
  await db?.destroy();
  await box?.cleanup();
});

const notice = (key: string, account: string): ExpiryNotice => {
  const t = made[key] as CreatedTokenJson;
  return { account, token_id: t.id, token_name: key, expires: t.expires, expires_at: endOf(t.expires as string) };
};
const IN_USE_SOON = () => [notice('amyIn3', 'amy'), notice('amyIn12', 'amy'), notice('zedIn12', 'zed')];

describe('expiringCounts', () => {
  it('counts the active tokens ending within each number of days, in whatever order they are asked', async () => {
    expect([...(await expiringCounts(ctx(), [7, 14]))]).toEqual([
      [7, 2],
      [14, 4],
    ]);
    // The query reads up to the farthest end asked, not the last one.
    expect([...(await expiringCounts(ctx(), [14, 60, 7]))]).toEqual([
      [14, 4],
      [60, 5],
      [7, 2],
    ]);
  });

  it('answers 0 where none ends, and nothing for no days', async () => {
    expect([...(await expiringCounts(ctx(), [1]))]).toEqual([[1, 0]]);
    now = T0 + 50 * DAY; // every token has ended
    expect([...(await expiringCounts(ctx(), [7, 14]))]).toEqual([
      [7, 0],
      [14, 0],
    ]);
    expect(await expiringCounts(ctx(), [])).toEqual(new Map());
  });
});

describe('tokensToNotice', () => {
  it('names the tokens used in the last 30 days that end within 14, by end, then account name', async () => {
    expect(await tokensToNotice(ctx())).toEqual(IN_USE_SOON());
  });
});

describe('ExpiryNotices', () => {
  const warner = () => {
    const warned: { fields: ExpiryNotice; message: string }[] = [];
    return { warned, warn: (fields: ExpiryNotice, message: string) => warned.push({ fields, message }) };
  };

  it('writes a day’s notice once: the first check warns per token, the next and another daemon’s answer null', async () => {
    now = T0 + 2 * DAY;
    const first = warner();
    const notices = new ExpiryNotices(ctx(), first.warn);
    const checking = notices.check();
    expect(notices.check()).toBe(checking); // one check at a time
    expect(await checking).toBe(3);
    expect(first.warned).toEqual(IN_USE_SOON().map((fields) => ({ fields, message: MESSAGE })));
    expect(await notices.check()).toBeNull();

    const other = warner();
    expect(await new ExpiryNotices(ctx(), other.warn).check()).toBeNull();
    expect(other.warned).toEqual([]);

    now += DAY; // the next day is nobody's yet
    expect(await notices.check()).toBe(3);
    expect(first.warned).toHaveLength(6);
  });

  it('checks every ten minutes once started, a second start adding no timer; stop ends it, and a start begins again', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    now = T0 + DAY;
    const notices = new ExpiryNotices(ctx(), warner().warn);
    const check = vi.spyOn(notices, 'check');
    const onError = vi.fn();
    notices.start(onError);
    notices.start(onError);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(10 * 60_000 - 1);
    expect(check).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(check).toHaveBeenCalledTimes(1);
    expect(await check.mock.results[0]?.value).toBe(3);

    notices.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60 * 60_000);
    expect(check).toHaveBeenCalledTimes(1);
    notices.start(onError);
    expect(vi.getTimerCount()).toBe(1);
    notices.stop();
    expect(vi.getTimerCount()).toBe(0);
    expect(onError).not.toHaveBeenCalled();
  });

  it('tells onError of a failed check, and checks again at the next tick', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let broken = true;
    const failing = {
      now: () => {
        if (broken) throw new Error('the clock is broken');
        return new Date(T0);
      },
    };
    let hear: (err: unknown) => void = () => undefined;
    const heard = new Promise<unknown>((resolve) => (hear = resolve));
    const notices = new ExpiryNotices({ db, clock: failing }, warner().warn);
    const check = vi.spyOn(notices, 'check');
    notices.start((err) => hear(err));
    vi.advanceTimersByTime(10 * 60_000);
    expect(((await heard) as Error).message).toBe('the clock is broken');
    broken = false;
    vi.advanceTimersByTime(10 * 60_000);
    expect(await check.mock.results[1]?.value).toBe(3);
    notices.stop();
  });
});
