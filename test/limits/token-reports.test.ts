// POST /api/tokens/revoke (issue 34, item 4): anyone reports leaked values, without a token.
// A live token among them is revoked at once, audited as reported (with the reporter's address,
// never the value) and logged as a warning; the answer is the same 202 whatever was found;
// shapes, sizes and repeated reports are refused with 422, 413 and 429. The daemon's clock
// sleeps at once (its answer floor is asserted from the waits asked). Each test reports from
// an address of its own (127.0.0.x), so their report counts (`limits.reportRate`) stay apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_BYTES } from '../../src/domain/access.js';
import { ANSWER_MS } from '../../src/http/routes/token-reports.js';
import { client, sendFrom, type Reply } from '../helpers/api.js';
import {
  createAccounts,
  createSandbox,
  createToken,
  legacyValue,
  openSandboxDb,
  type CreatedTokenJson,
  type Sandbox,
} from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { logEntries, noSleepClock, startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { authCounters } from '../helpers/metrics.js';
import { arcValue } from '../helpers/token-values.js';

let box: Sandbox;
let daemon: RunningDaemon;
/** Its waits (what the daemon asked for to keep answers to the ANSWER_MS floor) are not slept. */
const clock = noSleepClock();
const { waits } = clock;

beforeAll(async () => {
  box = await createSandbox();
  await patchConfig(box, { limits: { reportRate: '2/hour' } });
  await createAccounts(box, { root: 'superuser', scanner: 'user', editor: 'editor' });
  daemon = await startDaemon(box, { clock });
});
afterAll(async () => {
  await daemon?.stop();
  await box?.cleanup();
});

const from = (address: string) => client(() => daemon, address);
/** Every value a test reported: none may reach the daemon's log. */
const reported = new Set<string>();
const report = (address: string, credentials: string[]) => {
  for (const value of credentials) reported.add(value);
  return from(address).post('/api/tokens/revoke', { credentials });
};
const issue = async (name: string) => createToken(box, 'scanner', name, 'root');

interface Audit {
  actor: string;
  action: string;
  target: string;
}

describe('a report of a live token', () => {
  it('revokes it at once, audits and logs it without the value, and answers like any other report', async () => {
    const leaked = await issue('leaked');
    const api = client(() => daemon);
    expect((await api.get('/api/objects', leaked.token)).status).toBe(200);

    const r = await report('127.0.0.10', [leaked.token]);
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ data: { received: 1 } });
    expect(r.headers.get('cache-control')).toBe('no-store');

    const after = await api.get('/api/objects', leaked.token);
    expect(after.status).toBe(401);
    expect((after.body as { error: string }).error).toBe('the token has been revoked');

    const audit = await box.json<Audit[]>(['audit']);
    const entry = audit.find((e) => e.action === 'token.reported');
    expect(entry).toEqual({
      at: expect.any(String) as unknown,
      actor: 'report from 127.0.0.10',
      action: 'token.reported',
      target: `${leaked.id} of scanner`,
    });
    expect(JSON.stringify(audit)).not.toContain(leaked.token.slice(4));

    const warning = logEntries(daemon).find((l) => l.msg === 'revoked a token reported as leaked');
    expect(warning).toMatchObject({ level: 'warn', token_id: leaked.id, account: 'scanner', ip: '127.0.0.10' });
    // The value (or its secret part) is in no log line; the address of the report is.
    expect(daemon.logs.join('\n')).not.toContain(leaked.token.slice(12, 52));
  });

  it('gives the same answer for a live, an unknown, a malformed, a revoked and a legacy-shaped value', async () => {
    const live = await issue('live');
    const revoked = await issue('revoked');
    expect((await box.run(['token', 'revoke', revoked.id, '--as', 'root'])).code).toBe(0);
    const values = [live.token, arcValue(), 'arc_nonsense', revoked.token, legacyValue(), `${live.token}x`];
    const answers: { reply: Reply; took: number; asked: number[] }[] = [];
    for (const [i, value] of values.entries()) {
      const waited = waits.length;
      const sent = performance.now();
      const reply = await report(`127.0.0.${11 + i}`, [value]);
      answers.push({ reply, took: performance.now() - sent, asked: waits.slice(waited) });
    }
    for (const { reply, took, asked } of answers) {
      expect(reply.status).toBe(202);
      expect(reply.text).toBe('{"data":{"received":1}}');
      // Each answer waited out the rest of its ANSWER_MS, found or not (the clock's sleep, not a
      // real one); only one whose work alone took ANSWER_MS (a loaded machine) had none left.
      if (asked.length === 0) {
        expect(took, 'answered without waiting').toBeGreaterThanOrEqual(ANSWER_MS);
      } else {
        expect(asked).toHaveLength(1);
        expect(asked[0]).toBeGreaterThan(0);
        expect(asked[0]).toBeLessThanOrEqual(ANSWER_MS);
      }
    }
    expect((await client(() => daemon).get('/api/objects', live.token)).status).toBe(401);
  });
});

describe('the cost of a report', () => {
  it('is one query for all its values, and a KDF run only for a value whose fingerprint matches a live id', async () => {
    const known = await issue('known-id');
    const before = await authCounters(daemon.url);
    // Unknown ids and malformed values: looked up together in one query, never a KDF run.
    const unknownIds = Array.from({ length: 200 }, () => arcValue());
    expect((await report('127.0.0.50', unknownIds)).status).toBe(202);
    const unknown = await authCounters(daemon.url);
    expect(unknown.kdfRuns).toBe(before.kdfRuns);
    expect(unknown.lookups - before.lookups).toBe(1);
    // 300 forged secrets for a known id: their fingerprints do not match, so no KDF run (one in 16
    // million could), and no failure budget is spent.
    const forged = Array.from({ length: 300 }, () => arcValue(known.id));
    expect((await report('127.0.0.51', forged)).status).toBe(202);
    const after = await authCounters(daemon.url);
    expect(after.kdfRuns - unknown.kdfRuns).toBeLessThanOrEqual(1);
    expect(after.refused.throttled ?? 0).toBe(unknown.refused.throttled ?? 0);
    expect((await client(() => daemon).get('/api/objects', known.token)).status).toBe(200);
  });
});

describe('a report holding forged values beside the real one', () => {
  const forgedThenReal = (t: CreatedTokenJson) => [
    ...Array.from({ length: 20 }, () => arcValue(t.id)),
    t.token,
    ...Array.from({ length: 5 }, () => arcValue(t.id)),
  ];

  it('revokes the token, with one KDF run, though this daemon never verified its value', async () => {
    const leaked = await issue('hidden among forgeries');
    const before = await authCounters(daemon.url);
    const r = await report('127.0.0.52', forgedThenReal(leaked));
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ data: { received: 26 } });
    expect((await authCounters(daemon.url)).kdfRuns - before.kdfRuns).toBe(1);
    expect((await client(() => daemon).get('/api/objects', leaked.token)).status).toBe(401);
  });

  it('revokes a token made before fingerprints, checking each of its values', async () => {
    const leaked = await issue('made before fingerprints');
    const db = await openSandboxDb(box);
    try {
      await db('tokens').where('selector', leaked.id).update({ secret_check: null });
    } finally {
      await db.destroy();
    }
    const before = await authCounters(daemon.url);
    // From an address out of failure budget: a report is not refused or skipped for it.
    for (let i = 0; i < 12; i++) await client(() => daemon, '127.0.0.53').get('/api/objects', arcValue(leaked.id));
    expect((await report('127.0.0.53', forgedThenReal(leaked))).status).toBe(202);
    const runs = (await authCounters(daemon.url)).kdfRuns - before.kdfRuns;
    expect(runs).toBeGreaterThanOrEqual(21);
    expect((await client(() => daemon).get('/api/objects', leaked.token)).status).toBe(401);
  });
});

describe('what a report leaves behind', () => {
  it('is the same for a live id and an unknown one: presentations from the reporter are refused alike', async () => {
    const live = await issue('probed');
    const unknownId = arcValue().slice(4, 12);
    const statuses = async (address: string, selector: string) => {
      expect(
        (
          await report(
            address,
            Array.from({ length: 12 }, () => arcValue(selector)),
          )
        ).status,
      ).toBe(202);
      const seen: number[] = [];
      for (let i = 0; i < 12; i++)
        seen.push((await client(() => daemon, address).get('/api/objects', arcValue(selector))).status);
      return seen;
    };
    const forLive = await statuses('127.0.0.54', live.id);
    const forUnknown = await statuses('127.0.0.55', unknownId);
    expect(forLive).toEqual(forUnknown);
    // Nothing spent by the reports: the per-id burst (10) is whole when the presentations start.
    expect(forLive.slice(0, 10)).toEqual(Array(10).fill(401));
  });
});

describe('a report refused', () => {
  it('422 for more than 1,000 values or a body of another shape, with nothing revoked', async () => {
    const kept = await issue('kept');
    const tooMany = [kept.token, ...Array.from({ length: 1000 }, () => arcValue())];
    expect(JSON.stringify({ credentials: tooMany }).length).toBeLessThan(REPORT_BYTES);
    for (const body of [
      { credentials: tooMany },
      { credentials: kept.token },
      { credentials: [kept.token, 7] },
      { credentials: [] },
      { values: [kept.token] },
      { credentials: [kept.token], extra: true },
      [kept.token],
    ]) {
      const r = await from('127.0.0.20').post('/api/tokens/revoke', body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(r.text).not.toContain(kept.token.slice(4));
    }
    expect((await client(() => daemon).get('/api/objects', kept.token)).status).toBe(200);
  });

  it('413 over the byte limit, 415 for a form, with nothing revoked', async () => {
    const kept = await issue('kept-too');
    const padding = 'x'.repeat(REPORT_BYTES);
    const big = await from('127.0.0.21').post('/api/tokens/revoke', { credentials: [kept.token, padding] });
    expect(big.status).toBe(413);
    const form = await from('127.0.0.21').request('/api/tokens/revoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `credentials=${kept.token}`,
    });
    expect(form.status).toBe(415);
    expect((await client(() => daemon).get('/api/objects', kept.token)).status).toBe(200);
  });

  it('429 with Retry-After and the fields for repeated reports from one address; others report on', async () => {
    const reports = [];
    for (let i = 0; i < 3; i++) reports.push(await report('127.0.0.30', [arcValue()]));
    expect(reports.map((r) => r.status)).toEqual([202, 202, 429]);
    expect(reports[0]?.headers.get('ratelimit-policy')).toBe('"report";q=2;w=3600');
    expect(reports[0]?.headers.get('ratelimit')).toMatch(/^"report";r=1;t=\d+$/);
    const refused = reports[2] as Reply;
    expect(refused.headers.get('ratelimit')).toMatch(/^"report";r=0;t=\d+$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((refused.body as { error: string }).error).toContain('one address may send 2 reports per hour');
    // Nothing well-formed: nothing to check, not counted.
    expect((await report('127.0.0.30', ['arc_nonsense'])).status).toBe(202);
    expect((await report('127.0.0.31', [arcValue()])).status).toBe(202);
  });
});

describe('an Authorization header on a report', () => {
  it('is judged as on every open route: a valid token is ignored, a revoked one is a 401', async () => {
    const reporter = (await createToken(box, 'editor', 'reporter', 'root')).token;
    const leaked = await issue('leaked-again');
    const post = (token: string, credentials: string[]) =>
      sendFrom(daemon, '127.0.0.40', '/api/tokens/revoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ credentials }),
      });
    expect((await post(reporter, [leaked.token])).status).toBe(202);
    // The leaked token, now revoked, is refused as a header like anywhere else.
    const r = await post(leaked.token, [arcValue()]);
    expect(r.status).toBe(401);
  });
});

describe('the log', () => {
  it('holds none of the reported values', () => {
    expect(reported.size).toBeGreaterThan(5);
    const logs = daemon.logs.join('\n');
    for (const value of reported) if (value.length > 20) expect(logs).not.toContain(value.slice(4, 48));
  });
});
