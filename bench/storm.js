// BENCH_ONLY=storm npm run bench: a restart storm (docs/operations.md, "What a restart costs").
// One installation holds N distinct tokens, half created (`token create`'s rows, written straight
// into the database) and half legacy-imported (`token import-legacy`); a daemon is freshly started
// and 100 clients at once each present one cold token after another, from BENCH_STORM_ADDRESSES
// (10) source addresses 127.0.0.2…, retrying a refused request after its Retry-After. Per run:
// 503s and 429s, seconds until every token was served, each token's first success after its
// first attempt (p50 / p99), and the daemon's CPU per token. Every N (BENCH_STORM_SIZES,
// default 2000,5000) at every limits.kdfConcurrency (BENCH_STORM_KDF, default 1,2,4), for each
// build (this checkout's, then BENCH_VARIANTS=name=path/to/bin/archivectl,…), in turn.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { percentile, startDaemon } from './daemon.js';

const SIZES = (process.env.BENCH_STORM_SIZES ?? '2000,5000').split(',').map(Number);
const KDF = (process.env.BENCH_STORM_KDF ?? '1,2,4').split(',').map(Number);
const CLIENTS = Number(process.env.BENCH_STORM_CLIENTS ?? 100);
const ADDRESSES = Number(process.env.BENCH_STORM_ADDRESSES ?? 10);
const RUNS = Number(process.env.BENCH_STORM_RUNS ?? 1);
const VARIANTS = (process.env.BENCH_VARIANTS ?? '')
  .split(',')
  .filter(Boolean)
  .map((v) => v.split('='));
const TICKS_MS = 10; // USER_HZ 100

/** CPU ticks of a process's threads, grouped: its main thread, libuv's pool, the rest (V8's). */
function threadCpu(pid) {
  const out = { main: 0, pool: 0, other: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]);
      out[tid === String(pid) ? 'main' : comm.startsWith('libuv') ? 'pool' : 'other'] += ticks;
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** One GET; resolves with the status and the Retry-After header (s). */
function request(agent, url, token) {
  return new Promise((resolve) => {
    http
      .get(url, { agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, retryAfter: Number(res.headers['retry-after'] ?? 1) }));
      })
      .on('error', () => resolve({ status: 0, retryAfter: 1 }));
  });
}

/** The N tokens, created and legacy, in one installation under `dir`; resolves with their values. */
async function install({ cli, dir, n, formatModule, hashModule }) {
  const { mint, randomBase62 } = await import(formatModule);
  const { hashSecret, secretCheck } = await import(hashModule);
  cli('account', 'create', 'storm', '--role', 'user');
  const legacy = Array.from({ length: Math.floor(n / 2) }, () => randomBase62(60));
  const csv = path.join(dir, 'storm-legacy.csv');
  writeFileSync(csv, ['username,token,name', ...legacy.map((t, i) => `storm,${t},legacy ${i}`)].join('\n'));
  cli('token', 'import-legacy', csv);
  const { default: knex } = await import('knex');
  const db = knex({
    client: 'sqlite3',
    connection: { filename: path.join(dir, 'archive.sqlite3') },
    useNullAsDefault: true,
  });
  const created = [];
  try {
    const [{ id }] = await db('accounts').where('username', 'storm').select('id');
    const now = new Date().toISOString();
    for (let i = 0; i < n - legacy.length; i += 100) {
      const minted = Array.from({ length: Math.min(100, n - legacy.length - i) }, () => mint());
      const hashes = await Promise.all(minted.map((m) => hashSecret(m.secret)));
      await db('tokens').insert(
        minted.map((m, j) => ({
          selector: m.selector,
          account_id: id,
          name: `created ${i + j}`,
          kind: 'regular',
          secret_hash: hashes[j],
          secret_check: secretCheck(m.secret),
          created_at: now,
        })),
      );
      created.push(...minted.map((m) => m.value));
    }
  } finally {
    await db.destroy();
  }
  // Interleaved: every stretch of the storm holds both kinds.
  return created.flatMap((c, i) => (legacy[i] ? [c, legacy[i]] : [c]));
}

/** Forgets every use, so each run's first uses write last_used_at as after a real restart. */
async function forgetUses(dir) {
  const { default: knex } = await import('knex');
  const db = knex({
    client: 'sqlite3',
    connection: { filename: path.join(dir, 'archive.sqlite3') },
    useNullAsDefault: true,
  });
  try {
    await db('tokens').update({ last_used_at: null });
    await db('token_addresses').delete();
  } finally {
    await db.destroy();
  }
}

/** One storm against a fresh daemon of `bin` with `kdf` KDF runs at once. */
async function storm({ bin, env, dir, tokens, kdf }) {
  const base = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
  const config = path.join(dir, `config-storm-${kdf}.json`);
  writeFileSync(config, JSON.stringify({ ...base, limits: { ...base.limits, kdfConcurrency: kdf } }));
  await forgetUses(dir);
  const { proc, url } = await startDaemon(config, env, bin);
  const target = `${url}/api/actors?perPage=1`;
  const threads0 = threadCpu(proc.pid);
  const t0 = performance.now();
  const statuses = {};
  const firstSuccess = [];
  let next = 0;
  const worker = async (w) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: `127.0.0.${2 + (w % ADDRESSES)}` });
    for (let i = next++; i < tokens.length; i = next++) {
      const first = performance.now();
      for (;;) {
        const r = await request(agent, target, tokens[i]);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status === 200) break;
        if (r.status !== 503 && r.status !== 429) throw new Error(`token ${i}: status ${r.status}`);
        await new Promise((resolve) => setTimeout(resolve, r.retryAfter * 1000));
      }
      firstSuccess.push(performance.now() - first);
    }
    agent.destroy();
  };
  const cpuSince = (threads0) => {
    const threads1 = threadCpu(proc.pid);
    const perToken = (k) => ((threads1[k] - threads0[k]) * TICKS_MS) / tokens.length;
    return { all: perToken('main') + perToken('other'), main: perToken('main'), other: perToken('other') };
  };
  try {
    await Promise.all(Array.from({ length: CLIENTS }, (_, w) => worker(w)));
    const allServed = (performance.now() - t0) / 1000;
    const stormFirst = [...firstSuccess];
    const cold = cpuSince(threads0);
    // The same requests again, every token now verified: what a request costs without its KDF run.
    const warm0 = threadCpu(proc.pid);
    next = 0;
    firstSuccess.length = 0;
    const w0 = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, (_, w) => worker(w)));
    const warmS = (performance.now() - w0) / 1000;
    const warm = cpuSince(warm0);
    return { statuses, allServed, firstSuccess: stormFirst, cold, warm, warmS };
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.on('exit', r));
  }
}

const f2 = (x) => x.toFixed(2);

export async function runStorm({ bin, env, cli, dir, formatModule, hashModule }) {
  const builds = [['this', bin], ...VARIANTS.map(([name, b]) => [name, path.resolve(b)])];
  const n = Math.max(...SIZES);
  const t = performance.now();
  const all = await install({ cli, dir, n, formatModule, hashModule });
  console.log(`\nrestart storm: ${n} tokens installed in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  console.log(`${CLIENTS} clients from ${ADDRESSES} addresses; targets: 0 x 503, 2,000 within 10 s, 5,000 within 25 s`);
  console.log(
    'build  N     kdf  503  429  all served s  first success p50 / p99 ms  daemon CPU ms/token cold (main + other threads)  warm (main + other), s  load',
  );
  for (let run = 0; run < RUNS; run++)
    for (const size of SIZES)
      for (const kdf of KDF)
        for (const [name, b] of builds) {
          const r = await storm({ bin: b, env, dir, tokens: all.slice(0, size), kdf });
          const load = os
            .loadavg()
            .map((l) => l.toFixed(1))
            .join(' ');
          console.log(
            `${name.padEnd(6)} ${String(size).padEnd(5)} ${String(kdf).padEnd(4)} ${String(r.statuses[503] ?? 0).padStart(3)}  ${String(r.statuses[429] ?? 0).padStart(3)}  ${r.allServed.toFixed(2).padStart(12)}  ${percentile(r.firstSuccess, 50).toFixed(1).padStart(13)} / ${percentile(r.firstSuccess, 99).toFixed(1).padEnd(10)}  ${f2(r.cold.all)} (${f2(r.cold.main)} + ${f2(r.cold.other)})  ${f2(r.warm.all)} (${f2(r.warm.main)} + ${f2(r.warm.other)}), ${r.warmS.toFixed(2)}  ${load}`,
          );
        }
  execFileSync('uptime', { stdio: 'inherit' });
}
