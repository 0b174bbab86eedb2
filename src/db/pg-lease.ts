// PostgreSQL: daemons learn of access changes by LISTEN/NOTIFY and acknowledge them; a daemon trusts its cache
// only while its 2 s lease holds (a 500 ms heartbeat that hears its own NOTIFY), else it reads per request.
// The CLI waits for every daemon whose heartbeat is under 3 s old, so none goes on trusting an old generation.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type pg from 'pg';
import { pgClientConfig, type Db } from './dialect.js';

const CHANNEL = 'archive_access';
const HEARTBEAT_MS = 500;
const LEASE_MS = 2_000;
const LIVE_MS = 3_000;
const ACK_TIMEOUT_MS = 5_000;
/** How long a heartbeat waits to hear its own probe; well under LEASE_MS. */
const PROBE_WAIT_MS = 1_000;
/** Connecting the LISTEN connection, when the configuration sets no connect timeout. */
const LISTEN_CONNECT_MS = 5_000;
const DB_NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
/** SQL: the `seen_ms` after which a daemon counts as live. */
export const LIVE_SINCE = `${DB_NOW_MS} - ${LIVE_MS}`;

/** The LISTEN connection: heard its last probe, connected but deaf (a pooler, a stall), or down. */
export type NotificationState = 'up' | 'unverified' | 'down';

export interface Lease {
  /** The generation this daemon has adopted, while its lease is valid; null otherwise. */
  current(): string | null;
  notifications(): NotificationState;
  /** How many times the lease was found invalid (requests that had to read the database). */
  readonly lapses: number;
  /** The server process id of the LISTEN connection (null while it is down), for diagnostics. */
  listenerPid(): number | null;
  close(): Promise<void>;
}

const newer = (a: string, b: string) => BigInt(a) > BigInt(b);

export async function startLease(
  db: Db,
  readGeneration: () => Promise<string>,
  onError: (err: Error) => void,
): Promise<Lease> {
  const { default: pgModule } = await import('pg');
  const id = randomUUID();
  let generation = await readGeneration();
  let leaseUntil = 0;
  let heard: boolean | null = null; // whether the last probe came back (null: none sent yet)
  let probe: { nonce: string; heard: () => void } | null = null;
  let closed = false;
  let lapses = 0;
  let listener: pg.Client | null = null;

  const ownRow = () => db('daemons').where('id', id);
  const ack = (gen: string): Promise<number> =>
    ownRow().update({ acked_generation: db.raw('GREATEST(acked_generation, ?)', [gen]), seen_ms: db.raw(DB_NOW_MS) });
  const register = () =>
    db('daemons').insert({
      id,
      host: os.hostname().slice(0, 255),
      pid: process.pid,
      acked_generation: generation,
      seen_ms: db.raw(DB_NOW_MS),
    });

  const listen = async () => {
    const config = pgClientConfig(db);
    const client = new pgModule.Client({
      ...config,
      connectionTimeoutMillis: config.connectionTimeoutMillis || LISTEN_CONNECT_MS,
      keepAlive: true, // a server gone without a word is noticed by the operating system
      application_name: 'archivectl-listen',
    });
    // NOTIFY reaches every session of the database, and several installations may share one
    // database in schemas of their own: a payload names its schema, and only ours counts.
    let ownPrefix: string | null = null;
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || ownPrefix === null || !msg.payload?.startsWith(ownPrefix)) return;
      const notified = msg.payload.slice(ownPrefix.length);
      if (probe && notified === `probe:${probe.nonce}`) probe.heard();
      if (!/^\d+$/.test(notified)) return;
      if (newer(notified, generation)) generation = notified; // adopted before it is acknowledged
      void ack(generation).catch(() => undefined);
    });
    const lost = () => {
      if (listener !== client && listener !== null) return; // an older connection, replaced already
      heard = false;
      leaseUntil = 0;
      listener = null;
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      if (closed) {
        // close() ran while this connection was being made: it must not outlive the daemon.
        await client.end();
        return;
      }
      const schema = await client.query<{ schema: string }>('SELECT current_schema() AS schema');
      ownPrefix = `${schema.rows[0]?.schema ?? ''}:`;
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    listener = client;
  };

  /** NOTIFY a nonce through the pool; true once the LISTEN connection has heard it. */
  const roundTrip = async (): Promise<boolean> => {
    const nonce = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const back = new Promise<boolean>((resolve) => {
      probe = { nonce, heard: () => resolve(true) };
      timer = setTimeout(() => resolve(false), PROBE_WAIT_MS);
    });
    try {
      await db.raw("SELECT pg_notify(?, current_schema() || ':probe:' || ?)", [CHANNEL, nonce]);
      return await back;
    } finally {
      clearTimeout(timer);
      probe = null;
    }
  };

  await db('daemons')
    .where('seen_ms', '<', db.raw(`${DB_NOW_MS} - 86400000`))
    .delete(); // rows of long-gone daemons
  await register();

  const heartbeat = async () => {
    if (closed) return;
    const sentAt = performance.now();
    try {
      if (listener === null) await listen();
      const hears = await roundTrip();
      const fresh = await readGeneration();
      if (newer(fresh, generation)) generation = fresh;
      // The lease counts only while the CLI can see this daemon: a row removed meanwhile (a
      // daemon paused for a day is taken for gone) is written again before trusting anything.
      // A daemon that cannot hear still acknowledges: it reads the generation per request.
      if ((await ack(generation)) === 0) await register();
      if (!hears && heard !== false)
        onError(new Error('change notifications are not delivered (a pooler in between?)'));
      heard = hears;
      leaseUntil = hears ? sentAt + LEASE_MS : 0;
    } catch (err) {
      leaseUntil = 0;
      heard = false;
      onError(err as Error);
    }
  };
  await heartbeat();
  let running = false;
  const timer = setInterval(() => {
    if (running || closed) return;
    running = true;
    void heartbeat().finally(() => (running = false));
  }, HEARTBEAT_MS);
  timer.unref();

  return {
    current() {
      if (listener !== null && heard === true && performance.now() < leaseUntil) return generation;
      lapses++;
      return null;
    },
    notifications() {
      if (listener === null) return 'down';
      return heard === true ? 'up' : 'unverified';
    },
    get lapses() {
      return lapses;
    },
    listenerPid() {
      return (listener as unknown as { processID?: number } | null)?.processID ?? null;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      leaseUntil = 0;
      await listener?.end().catch(() => undefined);
      await ownRow()
        .delete()
        .catch(() => undefined);
    },
  };
}

/** Inside the transaction of an access change: tell listening daemons at commit. */
export async function notifyInTransaction(trx: Db, generation: string): Promise<void> {
  await trx.raw("SELECT pg_notify(?, current_schema() || ':' || ?)", [CHANNEL, generation]);
}

/** After the commit: how many live daemons did not adopt `generation` in time (lease lapsed). */
export async function waitForAcks(db: Db, generation: string): Promise<number> {
  const deadline = Date.now() + ACK_TIMEOUT_MS;
  for (;;) {
    const row = (await db('daemons')
      .where('seen_ms', '>', db.raw(LIVE_SINCE))
      .where('acked_generation', '<', generation)
      .count({ n: '*' })
      .first()) as { n: string | number };
    const waiting = Number(row.n);
    if (waiting === 0 || Date.now() > deadline) return waiting;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
