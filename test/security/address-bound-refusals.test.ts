// A leaked value of a token bound with --allow-from, presented from addresses outside its blocks
// (docs/security.md, "Tokens bound to addresses"): every such use is refused with 403, but it is
// no use of the token (last_used and its addresses stay its owner's), the 403 says nothing of the
// token (no Token-Expiration), one client key (an address, an IPv6 /64) gets a few refusals per
// token and then 429s, and what is logged and audited is bounded per token and day however many
// addresses the sender has.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, client, type Reply } from '../helpers/api.js';
import { createAccounts, createSandbox, openSandboxDb, type CreatedTokenJson, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { logEntries, startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/until.js';

const HOME = '198.51.100.7';
const REFUSED = 'refused a token presented from an address outside its allow_from';

let box: Sandbox;
let d: RunningDaemon;
const api = client(() => d);

beforeAll(async () => {
  box = await createSandbox();
  // A trusted proxy on loopback names the client, so one test can speak from many addresses.
  await patchConfig(box, { trustProxy: ['loopback'], publicUrl: 'https://archive.example.org' });
  await createAccounts(box, { root: 'superuser', harvester: 'user' });
  d = await startDaemon(box);
});
afterAll(async () => {
  await d?.stop();
  await box?.cleanup();
});

const bound = (name: string) =>
  box.json<CreatedTokenJson>([
    'token',
    'create',
    'harvester',
    '--name',
    name,
    '--allow-from',
    HOME,
    '--expires',
    '2037-12-31',
    '--as',
    'root',
  ]);

const from = (address: string, token: string): Promise<Reply> =>
  api.request('/api/objects', { headers: { ...bearer(token), 'X-Forwarded-For': address } });

interface Shown {
  last_used: string | null;
  last_used_from: string | null;
  addresses: { address: string }[];
}

const audited = async (id: string) =>
  (await box.json<{ actor: string; action: string; target: string }[]>(['audit'])).filter(
    (e) => e.action === 'token.refuse-address' && e.target.startsWith(`${id} `),
  );

const rowsOf = async (id: string) => {
  const db = await openSandboxDb(box);
  try {
    const row = (await db('token_address_refusals as r')
      .join('tokens as t', 't.id', 'r.token_id')
      .where('t.selector', id)
      .count({ n: '*' })
      .first()) as { n: number | string };
    return Number(row.n);
  } finally {
    await db.destroy();
  }
};

describe('a refused use of an address-bound token', () => {
  it('carries no token header and is no use of the token', async () => {
    const t = await bound('not a use');
    const refused = await from('203.0.113.20', t.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'this token is not accepted from this address' });
    expect(refused.headers.get('token-expiration')).toBeNull();
    expect(refused.headers.get('connection')).toBe('close');

    // Its owner's use, from its own server, is the one recorded.
    const ok = await from(HOME, t.token);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('token-expiration')).toBe('2038-01-01T00:00:00Z');
    let shown: Shown | undefined;
    await eventually(async () => {
      shown = await box.json<Shown>(['token', 'show', t.id]);
      return shown.last_used_from !== null;
    }, 'the use from its server to be recorded');
    expect(shown?.last_used_from).toBe(HOME);
    expect(shown?.addresses.map((a) => a.address)).toEqual([HOME]);
  });

  it('is throttled per token and client key: an IPv6 /64 is one key, however many addresses it uses', async () => {
    const t = await bound('one subscriber');
    const statuses: number[] = [];
    for (let i = 1; i <= 14; i++) statuses.push((await from(`2001:db8:5:6::${i.toString(16)}`, t.token)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(403));
    expect(statuses.slice(10)).toEqual(Array(4).fill(429));
    const throttled = await from('2001:db8:5:6::ff', t.token);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(throttled.headers.get('token-expiration')).toBeNull();
    // One key: one audit entry, one warning, one row, for the day.
    expect(await audited(t.id)).toHaveLength(1);
    expect(await rowsOf(t.id)).toBe(1);
    expect(logEntries(d).filter((e) => e.msg === REFUSED && e.token_id === t.id)).toHaveLength(1);
    // Another key is refused with 403, not 429: the throttle is the sender's, not the token's.
    expect((await from('2001:db8:5:7::1', t.token)).status).toBe(403);
    // And the owner is served throughout.
    expect((await from(HOME, t.token)).status).toBe(200);
  });

  it('is audited and logged for at most 10 client keys a token a day, then only counted', async () => {
    const t = await bound('flooded');
    const addresses = Array.from({ length: 40 }, (_, i) => `192.0.2.${i + 1}`);
    const answers = await Promise.all(addresses.map((address) => from(address, t.token)));
    expect(answers.map((r) => r.status)).toEqual(Array(40).fill(403));
    expect(await audited(t.id)).toHaveLength(10);
    expect(await rowsOf(t.id)).toBe(10);
    const lines = logEntries(d).filter((e) => e.token_id === t.id);
    expect(lines.filter((e) => e.msg === REFUSED)).toHaveLength(10);
    expect(lines.filter((e) => String(e.msg).startsWith('refused uses of this token from 10 client'))).toHaveLength(1);
    expect(lines).toHaveLength(11);
    // The value itself is in no line.
    expect(d.logs.join('\n')).not.toContain(t.token.slice(12, 52));
  });
});
