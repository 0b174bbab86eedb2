// BENCH_ONLY=ratelimit (issue 34): what rate limits cost, and how exactly two daemons share one.
//
// (1) Throughput of GET /api/actors?perPage=25 in alternating rounds (ABBA), on each database the
//     run has (SQLite; PostgreSQL with BENCH_PG_URL or ARCHIVE_TEST_PG_URL): without a token,
//     with a token that has no limit, and on a daemon started with `limits.tokenRate` at a rate
//     never reached (1,000,000/hour), with a limited token: every request counted and answered
//     with the RateLimit fields (memory on SQLite; on PostgreSQL in memory against allotments of
//     rate_limits); and a token with every restriction of its own (`--scope read --allow-from
//     127.0.0.0/8 --rate-limit`). Each authenticated figure is given as its own ratio to the
//     anonymous one of the same daemon. Then side by side on one daemon (ABBA): a token with a
//     rate of its own (never reached) against a token without a limit (target on PostgreSQL:
//     >= 0.95).
// (2) PostgreSQL only: two daemons on one database, a token limited to 600/minute, both hammered
//     at once (16 connections each) for 50 s of one window; the requests admitted (2xx) by both
//     together against the limit (target: within 10 %).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startDaemon } from './daemon.js';

const PG_URL = process.env.BENCH_PG_URL ?? process.env.ARCHIVE_TEST_PG_URL ?? null;
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const NEVER_REACHED = '1000000/hour';
const SHARED_LIMIT = 600;
const SHARED_SECONDS = 50;

function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: 16, duration: ROUND_SECONDS, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** A fresh installation: its config (with `limits`), a CLI on it, 1,000 actors, a token, public_access on. */
async function installation(bin, env, dialect, limits) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'archivectl-bench-rl-'));
  const pgName = `archivectl_bench_ratelimit_${process.pid}`;
  let database = { filename: './archive.sqlite3' };
  if (dialect === 'pg') {
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${pgName}`);
    await admin.query(`CREATE DATABASE ${pgName}`);
    await admin.end();
    database = { client: 'pg', url: `${PG_URL.replace(/\/[^/]*$/, '')}/${pgName}` };
  }
  const configOf = (l) => {
    const file = path.join(dir, `config-${Object.keys(l).join('-') || 'plain'}.json`);
    writeFileSync(file, JSON.stringify({ database, dataDir: './data', log: { level: 'info' }, limits: l }), {
      mode: 0o600,
    });
    return file;
  };
  const config = configOf({});
  const cli = (...args) =>
    execFileSync(process.execPath, [bin, '--config', config, ...args], {
      env: { ...env, ARCHIVECTL_AS: 'root' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  cli('migrate');
  execFileSync(process.execPath, [bin, '--config', config, 'account', 'create', 'root', '--role', 'superuser'], {
    env: { ...env, ARCHIVECTL_AS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cli('account', 'create', 'bench', '--role', 'editor');
  const actors = Array.from({ length: 1000 }, (_, i) => ({ name: `Actor ${i}`, type: 'person' }));
  writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify({ actors }));
  cli('catalog', 'load', path.join(dir, 'catalog.json'));
  cli('settings', 'set', 'public_access', 'on');
  return {
    token: (name, ...flags) => cli('token', 'create', 'bench', '--name', name, ...flags).trim(),
    config: configOf(limits),
    plain: config,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
      if (dialect !== 'pg') return;
      const { default: pg } = await import('pg');
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${pgName}`);
      await admin.end();
    },
  };
}

const stop = async (proc) => {
  proc.kill('SIGTERM');
  await new Promise((r) => proc.on('exit', r));
};

/**
 * Mean req/s of rounds with token `a` and with token `b` (null: none) in ABBA order against one
 * daemon, after a warm-up of each; fails on any non-2xx.
 */
async function alternate(url, a, b) {
  const target = `${url}/api/actors?perPage=25`;
  const opts = (token) => ({ url: target, ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}) });
  for (const token of [a, b]) {
    const warm = await cannon({ ...opts(token), duration: 2 });
    if (warm.non2xx) throw new Error(`${warm.non2xx} non-2xx answers while warming up`);
  }
  const sums = [0, 0];
  for (let r = 0; r < ROUNDS; r++) {
    for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const res = await cannon(opts([a, b][i]));
      if (res.non2xx || res.errors) throw new Error(`${res.non2xx} non-2xx, ${res.errors} errors`);
      sums[i] += res.requests.average;
    }
  }
  return sums.map((s) => s / ROUNDS);
}

async function throughput(bin, env, dialect, rows) {
  const inst = await installation(bin, env, dialect, { tokenRate: NEVER_REACHED });
  try {
    const token = inst.token('throughput');
    // Every restriction of its own on one token: each request checks the scope and the address
    // block and is counted against the token's rate (never reached).
    const narrowed = inst.token(
      'narrowed',
      '--scope',
      'read',
      '--allow-from',
      '127.0.0.0/8',
      '--rate-limit',
      NEVER_REACHED,
    );
    const limited = inst.token('limited', '--rate-limit', NEVER_REACHED);
    for (const [label, config, value] of [
      ['token without a limit', inst.plain, token],
      [`token limited (tokenRate ${NEVER_REACHED})`, inst.config, token],
      [`token scoped (read), bound (127.0.0.0/8), limited (--rate-limit ${NEVER_REACHED})`, inst.plain, narrowed],
    ]) {
      const { proc, url } = await startDaemon(config, env, bin, { pin: true });
      try {
        const [anon, auth] = await alternate(url, null, value);
        rows.push([`${dialect}: anonymous req/s / ${label} req/s`, `${Math.round(anon)} / ${Math.round(auth)}`]);
        rows.push([`${dialect}: ratio, ${label}`, (auth / anon).toFixed(3)]);
      } finally {
        await stop(proc);
      }
    }
    // Side by side on one daemon: the same work but for the count (and on PostgreSQL the allotments).
    const { proc, url } = await startDaemon(inst.plain, env, bin, { pin: true });
    try {
      const [free, counted] = await alternate(url, token, limited);
      const label = `token limited (--rate-limit ${NEVER_REACHED}) / token without a limit`;
      rows.push([`${dialect}: req/s, ${label}`, `${Math.round(counted)} / ${Math.round(free)}`]);
      const target = dialect === 'pg' ? ` (target >= 0.95: ${counted / free >= 0.95 ? 'yes' : 'NO'})` : '';
      rows.push([`${dialect}: ratio, ${label}`, `${(counted / free).toFixed(3)}${target}`]);
    } finally {
      await stop(proc);
    }
  } finally {
    await inst.drop();
  }
}

async function sharedLimit(bin, env, rows) {
  const inst = await installation(bin, env, 'pg', { tokenRate: `${SHARED_LIMIT}/minute` });
  const daemons = [];
  try {
    const token = inst.token('shared');
    daemons.push(await startDaemon(inst.config, env, bin), await startDaemon(inst.config, env, bin));
    const statuses = {};
    const runs = daemons.map(({ url }) => {
      const inst2 = autocannon({
        url: `${url}/api/actors?perPage=25`,
        connections: 16,
        duration: SHARED_SECONDS,
        headers: { Authorization: `Bearer ${token}` },
      });
      inst2.on('response', (_c, status) => (statuses[status] = (statuses[status] ?? 0) + 1));
      return new Promise((resolve) => inst2.on('done', resolve));
    });
    await Promise.all(runs);
    const admitted = Object.entries(statuses)
      .filter(([s]) => s.startsWith('2'))
      .reduce((n, [, c]) => n + c, 0);
    const deviation = Math.abs(admitted - SHARED_LIMIT) / SHARED_LIMIT;
    rows.push([
      `pg: two daemons, ${SHARED_LIMIT}/minute, ${SHARED_SECONDS} s of one window: admitted / limit`,
      `${admitted} / ${SHARED_LIMIT} (${(100 * deviation).toFixed(1)} % off; target <= 10 %: ${deviation <= 0.1 ? 'yes' : 'NO'})`,
    ]);
    rows.push([
      '  answers by status',
      Object.entries(statuses)
        .map(([s, c]) => `${s}:${c}`)
        .join(' '),
    ]);
  } finally {
    for (const { proc } of daemons) await stop(proc);
    await inst.drop();
  }
}

export async function runRateLimit({ bin, env: given }) {
  // The installations' own config files and databases, whatever the caller's environment names.
  const env = { ...given };
  delete env.ARCHIVE_CONFIG;
  delete env.DATABASE_URL;
  const rows = [];
  await throughput(bin, env, 'sqlite', rows);
  if (PG_URL) {
    await throughput(bin, env, 'pg', rows);
    await sharedLimit(bin, env, rows);
  } else rows.push(['pg: not measured', 'set BENCH_PG_URL or ARCHIVE_TEST_PG_URL']);
  const width = Math.max(...rows.map(([f]) => f.length));
  console.log(`\nrate limits (BENCH_ONLY=ratelimit), ${ROUNDS} rounds of ${ROUND_SECONDS} s, ABBA`);
  for (const [figure, value] of rows) console.log(`${figure.padEnd(width)}  ${value}`);
}
