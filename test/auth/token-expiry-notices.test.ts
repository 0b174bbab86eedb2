// Tokens about to end: once a day the daemon logs one warning per active token that ends within
// 14 days and was used in the last 30 (never its value), written once per database however many
// daemons run; /metrics counts the tokens that end within 7 and 14 days. Daemons listening on
// 127.0.0.1 with an injected clock, moved by the test: no waiting for days.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startDaemon, type Daemon } from '../../src/http/server.js';
import { createAccounts, createSandbox, createToken, type CreatedTokenJson, type Sandbox } from '../helpers/cli.js';

const DAY = 86_400_000;
const T0 = Date.parse('2030-03-01T08:00:00.000Z');
let now = T0;
const clock = { now: () => new Date(now) };
const cliAt = () => ({ now: new Date(now).toISOString() });

interface Logged {
  lines: Record<string, unknown>[];
  raw: string[];
}

let box: Sandbox;
const daemons: Daemon[] = [];
const made: Record<string, CreatedTokenJson> = {};

async function daemonWithLog(): Promise<{ daemon: Daemon; log: Logged }> {
  const log: Logged = { lines: [], raw: [] };
  const destination = {
    write(chunk: string | Buffer) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        log.raw.push(line);
        log.lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const config = loadConfig(box.configFile, { ...process.env, ...box.env });
  const daemon = await startDaemon(config, { host: '127.0.0.1', port: 0, clock, logDestination: destination });
  daemons.push(daemon);
  return { daemon, log };
}

const notices = (log: Logged) =>
  log.lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('token expires'));

async function use(daemon: Daemon, token: string): Promise<void> {
  const r = await fetch(`${daemon.url}/api/objects`, { headers: { Authorization: `Bearer ${token}` } });
  expect(r.status).toBe(200);
}

/** The last day a token made now is accepted, `days` days from today. */
const dayIn = (days: number) => new Date(now + days * DAY).toISOString().slice(0, 10);

let a: { daemon: Daemon; log: Logged };

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, { root: 'superuser', ingest: 'editor', viewer: 'user' });
  const create = async (key: string, user: string, expires: string[]) => {
    made[key] = await createToken(box, user, key, 'root', expires, cliAt());
  };
  await create('in5', 'ingest', ['--expires', dayIn(5)]);
  await create('in12', 'viewer', ['--expires', dayIn(12)]);
  await create('in40', 'ingest', ['--expires', dayIn(40)]);
  await create('unusedIn5', 'ingest', ['--expires', dayIn(5)]);
  await create('revokedIn5', 'viewer', ['--expires', dayIn(5)]);
  await create('forever', 'viewer', []);
  a = await daemonWithLog();
  for (const key of ['in5', 'in12', 'in40', 'revokedIn5', 'forever'])
    await use(a.daemon, (made[key] as CreatedTokenJson).token);
  await a.daemon.lastUsed.flush();
  expect((await box.run(['token', 'revoke', (made.revokedIn5 as CreatedTokenJson).id, '--as', 'root'])).code).toBe(0);
  // The next day: a handoff token, used, ends within hours; it is no one's to renew.
  now = T0 + DAY;
  const handoff = await box.json<CreatedTokenJson>(['token', 'handoff', 'viewer', '--as', 'root'], cliAt());
  made.handoff = handoff;
  await use(a.daemon, handoff.token);
  await a.daemon.lastUsed.flush();
});

afterAll(async () => {
  for (const d of daemons) await d.close();
  await box?.cleanup();
});

describe('the daily expiry notice', () => {
  it('is checked at start: the first daemon claims its day (no token was in use yet)', () => {
    expect(notices(a.log)).toEqual([]);
    const listening = a.log.lines.findIndex((l) => l.msg === 'listening');
    expect(listening).toBeGreaterThan(-1);
  });

  it('warns once per token in use that ends within 14 days, with account, id, name and end', async () => {
    expect(await a.daemon.expiryNotices.check()).toBe(2);
    const lines = notices(a.log);
    expect(lines.map((l) => l.token_id)).toEqual([made.in5?.id, made.in12?.id]);
    for (const line of lines) expect(line.level).toBe('warn');
    expect(lines[0]).toMatchObject({
      account: 'ingest',
      token_id: made.in5?.id,
      token_name: 'in5',
      expires: made.in5?.expires,
      expires_at: `${new Date(Date.parse(`${made.in5?.expires}T00:00:00Z`) + DAY).toISOString().slice(0, 19)}Z`,
    });
    expect(lines[1]).toMatchObject({ account: 'viewer', token_name: 'in12', expires: made.in12?.expires });
  });

  it('never writes a token value or its secret to the log', () => {
    const text = a.log.raw.join('\n');
    for (const t of Object.values(made)) {
      expect(text).not.toContain(t.token);
      expect(text).not.toContain(t.token.slice(12, 52));
    }
  });

  it('is written once a day: checking again the same day writes nothing', async () => {
    expect(await a.daemon.expiryNotices.check()).toBeNull();
    now += 6 * 3_600_000; // later the same UTC day
    expect(await a.daemon.expiryNotices.check()).toBeNull();
    expect(notices(a.log)).toHaveLength(2);
  });

  it('is written once per database, not per daemon, and by a daemon starting on a new day', async () => {
    const b = await daemonWithLog(); // same day: found claimed at its start
    expect(notices(b.log)).toEqual([]);
    expect(await b.daemon.expiryNotices.check()).toBeNull();

    now = T0 + 2 * DAY; // the next day: whichever daemon looks first writes it, the other nothing
    const [fromA, fromB] = await Promise.all([a.daemon.expiryNotices.check(), b.daemon.expiryNotices.check()]);
    expect([fromA, fromB].filter((n) => n !== null)).toEqual([2]);
    expect(notices(a.log).length + notices(b.log).length).toBe(4);

    now = T0 + 3 * DAY; // a daemon started on a day nobody claimed writes it before it listens
    const c = await daemonWithLog();
    const listening = c.log.lines.findIndex((l) => l.msg === 'listening');
    const noticed = c.log.lines.findIndex((l) => l.token_id === made.in5?.id);
    expect(noticed).toBeGreaterThan(-1);
    expect(noticed).toBeLessThan(listening);
    expect(await a.daemon.expiryNotices.check()).toBeNull();
    expect(await b.daemon.expiryNotices.check()).toBeNull();
  });

  it('leaves out tokens not used in the last 30 days', async () => {
    // 35 days after the uses: in40 now ends within 14 days, but nobody has used it for a month.
    now = T0 + 35 * DAY;
    expect(await a.daemon.expiryNotices.check()).toBe(0);
  });
});

describe('/metrics', () => {
  async function expiring(daemon: Daemon): Promise<Record<string, number>> {
    const res = await fetch(`${daemon.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^archivectl_tokens_expiring\{within_days="(\d+)"\} (\d+)$/gm))
      out[m[1] as string] = Number(m[2]);
    expect(text).toContain('# TYPE archivectl_tokens_expiring gauge');
    return out;
  }

  it('counts the active tokens that end within 7 and 14 days (handoff and revoked ones aside), at scrape time', async () => {
    now = T0 + DAY;
    // in5 and unusedIn5 end within 7 days; in12 within 14; in40 later; forever never.
    expect(await expiring(a.daemon)).toEqual({ '7': 2, '14': 3 });
    now = T0 + 8 * DAY; // in5 and unusedIn5 have ended; in12 is 5 days away
    expect(await expiring(a.daemon)).toEqual({ '7': 1, '14': 1 });
    now = T0 + 30 * DAY; // in40 is 11 days away
    expect(await expiring(a.daemon)).toEqual({ '7': 0, '14': 1 });
  });
});
