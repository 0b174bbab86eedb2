// The first requests after a start (docs/operations.md, "What a restart costs"): every token is
// cold, and values whose id names a row wait for their KDF run in the bounded fair queue instead
// of being refused, while forged values (unknown ids, spent budgets) never reach it. The daemons
// run in this process, so the queue can be held shut while requests arrive: what waits and what
// is answered at once is counted, not timed. Clients send from 127.0.x.y addresses.
import http from 'node:http';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { checksum, randomBase62 } from '../../src/domain/tokens/format.js';
import { startDaemon, type Daemon, type DaemonOptions } from '../../src/http/server.js';
import { createAccounts, createSandbox, createToken, type Sandbox } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const silent = { write: () => true } as unknown as NodeJS.WritableStream;
let box: Sandbox;
const daemons: Daemon[] = [];
const limitsOf = new Map<Daemon, Config['limits']>();
/** Values of tokens no daemon of this file has verified yet, taken one by one. */
const cold: string[] = [];
const LEGACY = 30;
const CREATED = 110;

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, { root: 'superuser', reader: 'user' });
  for (let i = 0; i < CREATED; i++) cold.push((await createToken(box, 'reader', `script ${i}`, 'root')).token);
  const legacy = Array.from({ length: LEGACY }, () => randomBase62(60));
  const csv = path.join(box.dir, 'legacy.csv');
  await writeFile(csv, ['username,token,name', ...legacy.map((t, i) => `reader,${t},old script ${i}`)].join('\n'));
  await box.run(['token', 'import-legacy', csv, '--as', 'root']);
  // Interleaved, so every group taken below holds both kinds.
  for (const [i, t] of legacy.entries()) cold.splice(i * 4, 0, t);
}, 120_000);

afterAll(async () => {
  await Promise.all(daemons.map((d) => d.close()));
  await box?.cleanup();
});

function take(n: number): string[] {
  expect(cold.length).toBeGreaterThanOrEqual(n);
  return cold.splice(0, n);
}

async function daemonWith(limits: Partial<Config['limits']> = {}, options: DaemonOptions = {}): Promise<Daemon> {
  const config = loadConfig(box.configFile, { ...process.env, ...box.env });
  const patched = { ...config, limits: { ...config.limits, ...limits } };
  const d = await startDaemon(patched, { host: '127.0.0.1', port: 0, logDestination: silent, ...options });
  daemons.push(d);
  limitsOf.set(d, patched.limits);
  return d;
}

/** Every KDF slot taken by a run that ends when `open()` is called: what arrives must wait. */
function holdKdf(d: Daemon): { open: () => Promise<void> } {
  const gates: (() => void)[] = [];
  const slots = limitsOf.get(d)?.kdfConcurrency ?? 0;
  const held = Array.from({ length: slots }, () =>
    d.authenticator.kdf.run('holder', () => new Promise<void>((done) => gates.push(done))),
  );
  expect(d.authenticator.kdf.running).toBe(slots);
  return {
    open: async () => {
      for (const g of gates) g();
      await Promise.all(held);
    },
  };
}

const forged = (id: string) => {
  const secret = randomBase62(40);
  return `arc_${id}${secret}${checksum(id + secret)}`;
};

/** One request from `localAddress`: the status and Retry-After (0 for a dropped connection). */
function send(d: Daemon, token: string, localAddress: string) {
  return new Promise<{ status: number; retryAfter: string | undefined }>((resolve) => {
    const req = http.get(
      `${d.url}/api/objects`,
      { localAddress, agent: false, headers: { Authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
      },
    );
    req.on('error', () => resolve({ status: 0, retryAfter: undefined }));
  });
}

const statuses = (answers: { status: number }[]) => answers.map((a) => a.status);

describe('cold tokens after a start', () => {
  it('wait for the KDF, many more than the former bound of 64 at once, and are all served', async () => {
    const d = await daemonWith();
    expect(limitsOf.get(d)?.kdfQueue).toBeGreaterThanOrEqual(100);
    const gate = holdKdf(d);
    const values = take(100);
    const answers = values.map((v, i) => send(d, v, `127.0.1.${i + 1}`));
    await until(() => d.authenticator.kdf.queued === values.length, 'every cold token waiting for the KDF');
    await gate.open();
    expect(statuses(await Promise.all(answers))).toEqual(values.map(() => 200));
    expect(d.authenticator.stats.busy).toBe(0);
    expect(d.authenticator.stats.kdfRuns).toBe(values.length);
  });

  it('share the queue with forged values that never wait: unknown ids and spent budgets are answered at once', async () => {
    const d = await daemonWith({}, { auth: { perClient: { burst: 2, perMinute: 0 }, probationPerSecond: 0 } });
    const gate = holdKdf(d);
    const [waiting, known] = take(2) as [string, string];
    const served = send(d, waiting, '127.0.2.1');
    await until(() => d.authenticator.kdf.queued === 1, 'the cold token waiting');
    // Unknown ids from many addresses, answered while the queue is still shut, without a KDF run.
    const unknown = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(d, forged(randomBase62(8)), `127.0.2.${i + 10}`)),
    );
    expect(statuses(unknown)).toEqual(unknown.map(() => 401));
    // A known id from one address: its two credits buy two places in the queue, then 429 at once.
    const id = known.slice(4, 12);
    const spending = [send(d, forged(id), '127.0.2.40'), send(d, forged(id), '127.0.2.40')];
    await until(() => d.authenticator.kdf.queued === 3, 'two forged values of a known id waiting');
    // Out of credits: one more waits for the shared probation run, the other four are refused at once.
    const answered: number[] = [];
    const beyond = Array.from({ length: 5 }, () =>
      send(d, forged(id), '127.0.2.40').then((a) => (answered.push(a.status), a)),
    );
    await until(() => answered.length === 4, 'four answers while the queue is shut');
    expect(answered).toEqual([429, 429, 429, 429]);
    expect(d.authenticator.kdf.queued).toBe(4);
    expect(d.authenticator.stats.kdfRuns).toBe(0);
    await gate.open();
    expect((await served).status).toBe(200);
    expect(statuses(await Promise.all(spending))).toEqual([401, 401]);
    expect(statuses(await Promise.all(beyond)).sort()).toEqual([401, 429, 429, 429, 429]);
    // The cold token, the known id's two forged values and the probation run: never an unknown id.
    expect(d.authenticator.stats.kdfRuns).toBe(4);
  });
});

describe("the queue's bound", () => {
  it('refuses beyond it with 503 and Retry-After, for a known id and an unknown one alike', async () => {
    const d = await daemonWith({ kdfQueue: 4 });
    const gate = holdKdf(d);
    const values = take(5);
    const waiting = values.slice(0, 4).map((v, i) => send(d, v, `127.0.3.${i + 1}`));
    await until(() => d.authenticator.kdf.queued === 4, 'four cold tokens waiting');
    const beyond = await send(d, values[4] as string, '127.0.3.9');
    expect(beyond).toEqual({ status: 503, retryAfter: '1' });
    // An unknown id is refused the same way while the queue is full: the answer tells nothing.
    expect(await send(d, forged(randomBase62(8)), '127.0.3.10')).toEqual({ status: 503, retryAfter: '1' });
    expect(d.authenticator.stats.busy).toBe(2);
    expect(d.authenticator.kdf.queued).toBe(4);
    await gate.open();
    expect(statuses(await Promise.all(waiting))).toEqual([200, 200, 200, 200]);
    // Refused, not spent: once there is room the same value is served.
    expect((await send(d, values[4] as string, '127.0.3.9')).status).toBe(200);
  });

  it('is shared in turn: a client that filled it gives up its newest place to another client', async () => {
    const d = await daemonWith({ kdfQueue: 4 });
    const gate = holdKdf(d);
    const [a1, a2, a3, a4, b] = take(5) as [string, string, string, string, string];
    const answeredA: { status: number; retryAfter: string | undefined }[] = [];
    const fromA = [a1, a2, a3, a4].map((v) => send(d, v, '127.0.4.1').then((a) => (answeredA.push(a), a)));
    await until(() => d.authenticator.kdf.queued === 4, "one client's four cold tokens waiting");
    const fromB = send(d, b, '127.0.4.2');
    // A's newest is refused at once (503) to make room for B, which waits and is served.
    await until(() => answeredA.length === 1, "a place of the first client's given up");
    expect(answeredA).toEqual([{ status: 503, retryAfter: '1' }]);
    expect(d.authenticator.kdf.queued).toBe(4);
    await gate.open();
    expect((await fromB).status).toBe(200);
    expect(statuses(await Promise.all(fromA)).sort()).toEqual([200, 200, 200, 503]);
  });
});
