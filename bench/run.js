#!/usr/bin/env node
// npm run bench: starts a real daemon on 127.0.0.1 with 1,000 actors and measures, in one run,
// the figures the hot-path targets are stated in. Prints a table; bench/RESULTS.md keeps them.
// Then the attack section (bench/attacks.js): the attacks of the security review as measured
// phases beside a calm one (a fresh daemon per phase), with a table of its own.
// Bounded: every load phase has a fixed duration, the whole run a hard timeout
// (BENCH_TIMEOUT_SECONDS, default 1500), and everything talks to 127.0.0.0/8 only.
//
//   BENCH_ONLY=attacks   only the attack section (setup included)
//   BENCH_ONLY=core      only the figures before it
//   BENCH_ONLY=flood     only phase (h) of the attack section: a never-verified id flooded, 5 runs
//   BENCH_ONLY=beacon    only phase (i): BEACON dumps asked for with a new Host each, beside a harvester
//   BENCH_ONLY=tls       only the TLS handshake hold (bench/tls-hold.js), also run after the attacks
//   BENCH_ONLY=refusal   only the refusal timing of forged values: ids in use, unused, unknown, revoked
//   BENCH_ONLY=storm     only the restart storm (bench/storm.js): N cold tokens, 100 clients at once
//   BENCH_ONLY=scale     only the archive-scale scenario (bench/scale.js)
//   BENCH_ONLY=soak      only the bounded soak run (bench/soak.js; BENCH_SOAK_SECONDS, default 600)
//   BENCH_ONLY=ratelimit only the rate limits (bench/ratelimit.js): their cost per request, and a
//                        limit shared by two PostgreSQL daemons (BENCH_PG_URL or ARCHIVE_TEST_PG_URL)
//   BENCH_KDF_CONCURRENCY=n  limits.kdfConcurrency of the daemons this file starts (default: the
//                        daemon's own; bench/storm.js has BENCH_STORM_KDF)
//   BENCH_DAEMON_ROOT=…  measure the archivectl checkout there (its bin/, dist/bundle/ and src/) instead of ..
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { build } from 'rolldown';
import { get, median, memoryOf, ms, percentile, startDaemon } from './daemon.js';

const ROOT = process.env.BENCH_DAEMON_ROOT
  ? path.resolve(process.env.BENCH_DAEMON_ROOT)
  : fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'archivectl');
// The token format and hash of the checkout measured, from its src/, bundled for node (which runs
// no TypeScript) into a directory of this run's.
const SOURCE = mkdtempSync(path.join(os.tmpdir(), 'archivectl-bench-src-'));
process.on('exit', () => rmSync(SOURCE, { recursive: true, force: true }));
await build({
  input: { format: path.join(ROOT, 'src/domain/tokens/format.ts'), hash: path.join(ROOT, 'src/domain/tokens/hash.ts') },
  platform: 'node',
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  output: { dir: SOURCE, format: 'esm' },
  logLevel: 'silent',
});
const FORMAT_MODULE = path.join(SOURCE, 'format.js');
const { checksum, randomBase62 } = await import(FORMAT_MODULE);
const { hashSecret } = await import(path.join(SOURCE, 'hash.js'));

const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONNECTIONS = 16;
const ONLY = process.env.BENCH_ONLY ?? '';
if (
  !['', 'core', 'attacks', 'flood', 'beacon', 'tls', 'refusal', 'storm', 'scale', 'soak', 'ratelimit'].includes(ONLY)
) {
  console.error(
    `BENCH_ONLY must be "core", "attacks", "flood", "beacon", "tls", "refusal", "storm", "scale", "soak" or "ratelimit", not "${ONLY}"`,
  );
  process.exit(2);
}
if (ONLY === 'scale') {
  // A scenario of its own, with its own cached catalogues and bounds.
  const { runScale } = await import('./scale.js');
  await runScale();
  process.exit(0);
}
if (ONLY === 'soak') {
  // One daemon under a steady mix for minutes; exit status 1 when its verdict fails.
  const { runSoak } = await import('./soak.js');
  process.exit((await runSoak({ bin: BIN })) ? 0 : 1);
}
if (ONLY === 'ratelimit') {
  // Installations of its own (SQLite, and PostgreSQL when given), daemons started per figure.
  const { runRateLimit } = await import('./ratelimit.js');
  await runRateLimit({ bin: BIN, env: { ...process.env } });
  process.exit(0);
}
const RUN_CORE = ONLY === '' || ONLY === 'core';
const RUN_ATTACKS = ONLY === '' || ONLY === 'attacks';
const RUN_FLOOD = RUN_ATTACKS || ONLY === 'flood';
const RUN_BEACON_BURST = RUN_ATTACKS || ONLY === 'beacon';
const RUN_TLS_HOLD = RUN_ATTACKS || ONLY === 'tls';
const RUN_REFUSAL = ONLY === '' || ONLY === 'refusal';
const RUN_STORM = ONLY === 'storm';

// Never hang, never leave a daemon behind: a hard timeout for the whole run, and every daemon
// this process started is killed when it exits.
const BENCH_TIMEOUT_SECONDS = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 1500);
setTimeout(() => {
  console.error(`bench: hard timeout of ${BENCH_TIMEOUT_SECONDS} s reached; stopping`);
  rmSync(dir, { recursive: true, force: true });
  process.exit(3);
}, BENCH_TIMEOUT_SECONDS * 1000).unref();

const dir = mkdtempSync(path.join(os.tmpdir(), 'archivectl-bench-'));
const config = path.join(dir, 'config.json');
// Log level info, as in production: the one access-log line per request is part of the cost.
writeFileSync(
  config,
  JSON.stringify({
    database: { filename: './archive.sqlite3' },
    dataDir: './data',
    log: { level: 'info' },
    ...(process.env.BENCH_KDF_CONCURRENCY && { limits: { kdfConcurrency: Number(process.env.BENCH_KDF_CONCURRENCY) } }),
  }),
);
const env = { ...process.env, ARCHIVECTL_AS: 'root' };
delete env.ARCHIVE_CONFIG;
delete env.DATABASE_URL;

const cli = (...args) =>
  execFileSync(process.execPath, [BIN, '--config', config, ...args], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** Median ms of `archivectl <args>`. */
function timeCommand(args, runs = 9) {
  return timeInTurn({ it: [BIN, ...args] }, runs).it;
}

/**
 * Median ms of each `node <args>` of `commands` (name → args), run in turn (A B C A B C …) after
 * one run each that is not counted, so that all meet the machine in the same state.
 */
function timeInTurn(commands, runs) {
  const times = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let i = 0; i <= runs; i++) {
    for (const [name, args] of Object.entries(commands)) {
      const t0 = process.hrtime.bigint();
      execFileSync(process.execPath, args, { env, stdio: 'ignore' });
      if (i > 0) times[name].push(ms(t0));
    }
  }
  return Object.fromEntries(Object.entries(times).map(([name, t]) => [name, median(t)]));
}

function cannon(opts) {
  return new Promise((resolve, reject) => {
    const inst = autocannon({ connections: CONNECTIONS, duration: ROUND_SECONDS, ...opts }, (err, res) =>
      err ? reject(err) : resolve(res),
    );
    autocannon.track(inst, {
      renderProgressBar: false,
      renderResultsTable: false,
      renderLatencyTable: false,
      outputStream: new (class {
        write() {}
      })(),
    });
  });
}

const rows = [];
const rssSeen = [];
const row = (figure, value, target, met) =>
  rows.push({ figure, value, target, met: met === undefined ? '' : met ? 'yes' : 'NO' });

function printCore() {
  const width = Math.max(...rows.map((r) => r.figure.length));
  const vw = Math.max(...rows.map((r) => String(r.value).length));
  console.log(`${'figure'.padEnd(width)}  ${'value'.padStart(vw)}  target  met`);
  for (const r of rows)
    console.log(`${r.figure.padEnd(width)}  ${String(r.value).padStart(vw)}  ${r.target}  ${r.met}`);
}

console.log(
  `archivectl bench — node ${process.version}, ${os.cpus().length} cpus (${os.cpus()[0]?.model ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`,
);
try {
  // Setup: the database (only migrate and serve create one), accounts, a token, 1,000 actors,
  // the archive public so anonymous reads are served. The first account has nobody to act as:
  // created without ARCHIVECTL_AS.
  cli('migrate');
  execFileSync(process.execPath, [BIN, '--config', config, 'account', 'create', 'root', '--role', 'superuser'], {
    env: { ...env, ARCHIVECTL_AS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cli('account', 'create', 'bench', '--role', 'editor');
  const token = cli('token', 'create', 'bench', '--name', 'bench').trim();
  const actors = Array.from({ length: 1000 }, (_, i) => ({
    name: `Actor ${String(i).padStart(4, '0')}`,
    type: i % 3 ? 'person' : 'corporate_body',
  }));
  writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify({ actors }));
  cli('catalog', 'load', path.join(dir, 'catalog.json'));
  cli('settings', 'set', 'public_access', 'on');

  if (RUN_CORE) {
    const { proc, url } = await startDaemon(config, env, BIN);
    const target = `${url}/api/actors?perPage=25`;
    await get(target, token); // warm: the token's one scrypt verification happens here
    rssSeen.push(`idle ${memoryOf(proc.pid).rss.toFixed(0)}`);

    // (1) authenticated vs anonymous throughput, alternating rounds, after one warm-up round of
    // each (JIT, SQLite page cache) that is not counted.
    await cannon({ url: target, duration: 2 });
    await cannon({ url: target, duration: 2, headers: { Authorization: `Bearer ${token}` } });
    let anon = 0;
    let auth = 0;
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      // ABBA order: neither kind always runs second (after the other's garbage and WAL growth).
      const runAnon = () => cannon({ url: target });
      const runAuth = () => cannon({ url: target, headers: { Authorization: `Bearer ${token}` } });
      let a;
      let b;
      if (r % 2 === 0) {
        a = await runAnon();
        b = await runAuth();
      } else {
        b = await runAuth();
        a = await runAnon();
      }
      if (a.non2xx || b.non2xx || a.errors || b.errors) throw new Error('errors during the throughput rounds');
      anon += a.requests.average;
      auth += b.requests.average;
      rounds.push(`${Math.round(a.requests.average)}/${Math.round(b.requests.average)}`);
    }
    const ratio = auth / anon;
    rssSeen.push(`after throughput ${memoryOf(proc.pid).rss.toFixed(0)}`);
    row('GET /api/actors?perPage=25, anonymous req/s (mean of rounds)', Math.round(anon / ROUNDS), '', undefined);
    row('GET /api/actors?perPage=25, authenticated req/s', Math.round(auth / ROUNDS), '', undefined);
    row(`  rounds anon/auth (${ROUND_SECONDS}s each)`, rounds.join(' '), '', undefined);
    row('authenticated / anonymous ratio', ratio.toFixed(3), '>= 0.90', ratio >= 0.9);

    // (2) first request with a freshly created token vs one scrypt hash.
    const kdf = [];
    for (let i = 0; i < 9; i++) {
      const t0 = process.hrtime.bigint();
      await hashSecret(randomBase62(40));
      kdf.push(ms(t0));
    }
    const warm = [];
    for (let i = 0; i < 50; i++) warm.push((await get(target, token)).ms);
    const first = [];
    for (let i = 0; i < 7; i++) {
      const fresh = cli('token', 'create', 'bench', '--name', `fresh ${i}`).trim();
      first.push((await get(target, fresh)).ms);
    }
    rssSeen.push(`after first use ${memoryOf(proc.pid).rss.toFixed(0)}`);
    const kdfMs = median(kdf);
    const firstMs = median(first);
    row('one scrypt hash, ms (median)', kdfMs.toFixed(2), '', undefined);
    row('request with an already verified token, ms (median)', median(warm).toFixed(2), '', undefined);
    row(
      'first request with a fresh token, ms (median of 7)',
      firstMs.toFixed(2),
      `<= scrypt + 5 = ${(kdfMs + 5).toFixed(2)}`,
      firstMs <= kdfMs + 5,
    );

    // (3) legitimate p99 under a flood of forged tokens (real selector, fresh wrong secret each time).
    const calm = [];
    const calmEnd = Date.now() + ROUND_SECONDS * 1000;
    while (Date.now() < calmEnd) calm.push((await get(target, token)).ms);
    rssSeen.push(`after calm ${memoryOf(proc.pid).rss.toFixed(0)}`);
    const selector = token.slice(4, 12);
    const forged = () => {
      const secret = randomBase62(40);
      return `arc_${selector}${secret}${checksum(selector + secret)}`;
    };
    // Refused = 401 (or 429/503, which a daemon with failure budgets and a bounded KDF queue
    // answers a flood with); accepted = any 2xx; anything else is listed by status.
    let forgedAccepted = 0;
    let forgedRefused = 0;
    const forgedStatuses = {};
    const flood = autocannon({
      url: target,
      connections: 64,
      duration: ROUND_SECONDS + 1,
      requests: [
        { setupRequest: (req) => ({ ...req, headers: { ...req.headers, Authorization: `Bearer ${forged()}` } }) },
      ],
    });
    flood.on('response', (_client, status) => {
      forgedStatuses[status] = (forgedStatuses[status] ?? 0) + 1;
      if (status === 401 || status === 429 || status === 503) forgedRefused++;
      else if (status >= 200 && status < 300) forgedAccepted++;
    });
    const floodDone = new Promise((resolve) => flood.on('done', resolve));
    await new Promise((r) => setTimeout(r, 300));
    const loaded = [];
    let legitErrors = 0;
    const loadEnd = Date.now() + (ROUND_SECONDS - 0.5) * 1000;
    while (Date.now() < loadEnd) {
      const r = await get(target, token);
      if (r.status !== 200) legitErrors++;
      loaded.push(r.ms);
    }
    await floodDone;
    rssSeen.push(`after flood ${memoryOf(proc.pid).rss.toFixed(0)}`);
    const calmP99 = percentile(calm, 99);
    const loadP99 = percentile(loaded, 99);
    row('legitimate p99 calm, ms', calmP99.toFixed(2), '', undefined);
    row(
      'legitimate p99 during 64-client forged flood, ms',
      loadP99.toFixed(2),
      `<= 3x calm (${(3 * calmP99).toFixed(2)}) or <= 50`,
      loadP99 <= 3 * calmP99 || loadP99 <= 50,
    );
    row(
      'legitimate requests during flood / errors',
      `${loaded.length} / ${legitErrors}`,
      '0 errors',
      legitErrors === 0,
    );
    const forgedOther = Object.values(forgedStatuses).reduce((a, b) => a + b, 0) - forgedRefused - forgedAccepted;
    row(
      'forged requests refused / accepted',
      `${forgedRefused} / ${forgedAccepted}`,
      'all refused',
      forgedAccepted === 0 && forgedOther === 0 && forgedRefused > 0,
    );
    row(
      '  forged answers by status',
      Object.entries(forgedStatuses)
        .map(([k, v]) => `${k}:${v}`)
        .join(' '),
      '',
      undefined,
    );

    // (6) peak RSS of the daemon (VmHWM: the high-water mark of its resident set).
    const { hwm } = memoryOf(proc.pid);
    proc.kill('SIGTERM');
    await new Promise((r) => proc.on('exit', r));
    row('daemon peak RSS, MB', hwm.toFixed(1), '<= 130', hwm <= 130);
    row('  daemon RSS by phase, MB', rssSeen.join(', '), '', undefined);

    // (4) CLI start-up, beside node's own in the same minutes: what a command adds to `node -e 0`
    // is what it costs (the machine's speed moves both). Where node has a compile cache
    // (22.1 and later), the uncounted first runs fill it, as an operator's first command would.
    const { node, help, list } = timeInTurn(
      { node: ['-e', '0'], help: [BIN, '--help'], list: [BIN, '--config', config, 'token', 'list'] },
      9,
    );
    row('node -e 0, ms (median of 9): what every command costs at least', node.toFixed(1), '', undefined);
    row('archivectl --help, ms (median of 9)', help.toFixed(1), '<= node + 45', help <= node + 45);
    row('archivectl token list, ms (median of 9)', list.toFixed(1), '<= node + 95', list <= node + 95);

    // (5) 10,000 legacy tokens.
    const users = 100;
    for (let u = 0; u < users; u++) cli('account', 'create', `legacy${u}`, '--role', 'user');
    const lines = ['username,token,name'];
    for (let i = 0; i < 10_000; i++) lines.push(`legacy${i % users},${randomBase62(60)},legacy ${i}`);
    writeFileSync(path.join(dir, 'legacy.csv'), `${lines.join('\n')}\n`);
    const t0 = process.hrtime.bigint();
    const out = JSON.parse(cli('token', 'import-legacy', path.join(dir, 'legacy.csv'), '--json'));
    const importS = ms(t0) / 1000;
    if (out.imported !== 10_000) throw new Error(`imported ${out.imported}`);
    row('import 10,000 legacy tokens, s', importS.toFixed(1), '<= 60', importS <= 60);

    // (7) token list with 20,000 tokens: 10,000 more rows beside the imported ones, written
    // straight into the database (listing never verifies a hash, so one stands for all).
    const { default: knex } = await import('knex');
    // The extra rows go to one of the legacy accounts, so that account show has many to list.
    const bulkAccount = 'legacy0';
    let bulkTokens = 0;
    const db = knex({
      client: 'sqlite3',
      connection: { filename: path.join(dir, 'archive.sqlite3') },
      useNullAsDefault: true,
    });
    try {
      const [{ id: accountId }] = await db('accounts').where('username', bulkAccount).select('id');
      const [{ secret_hash: hash }] = await db('tokens').select('secret_hash').limit(1);
      const now = new Date().toISOString();
      const extra = Array.from({ length: 10_000 }, (_, i) => ({
        selector: `b${String(i).padStart(7, '0')}`,
        account_id: accountId,
        name: `bulk ${i}`,
        kind: 'regular',
        secret_hash: hash,
        created_at: now,
      }));
      for (let i = 0; i < extra.length; i += 500) await db('tokens').insert(extra.slice(i, i + 500));
      const [{ n }] = await db('tokens').count({ n: '*' });
      if (Number(n) < 20_000) throw new Error(`only ${n} tokens`);
      const [{ n: own }] = await db('tokens').where('account_id', accountId).count({ n: '*' });
      bulkTokens = Number(own);
    } finally {
      await db.destroy();
    }
    const table = timeCommand(['--config', config, 'token', 'list', '--all'], 5);
    const json = timeCommand(['--config', config, 'token', 'list', '--all', '--json'], 5);
    // cli-table3 draws every table: it sets each cell up on its own (some 8 µs a cell here), so a
    // table's target is 2 s, where the JSON of the same rows keeps the 1 s of other listings.
    row('token list of 20,000 tokens (table, piped), ms (median of 5)', table.toFixed(0), '<= 2000', table <= 2000);
    row('token list of 20,000 tokens (--json), ms (median of 5)', json.toFixed(0), '< 1000', json < 1000);
    const shown = timeCommand(['--config', config, 'account', 'show', bulkAccount], 5);
    const what = `account show of an account with ${bulkTokens.toLocaleString('en')} tokens, ms (median of 5)`;
    row(what, shown.toFixed(0), '< 1000', shown < 1000);
    printCore();
  }
  if (RUN_STORM) {
    const { runStorm } = await import('./storm.js');
    await runStorm({ bin: BIN, env, cli, dir, formatModule: FORMAT_MODULE, hashModule: path.join(SOURCE, 'hash.js') });
  }
  if (RUN_REFUSAL) {
    const { runRefusalTiming } = await import('./refusal-timing.js');
    const unused = cli('token', 'create', 'bench', '--name', 'never used').trim();
    const revoked = cli('token', 'create', 'bench', '--name', 'revoked').trim();
    cli('token', 'revoke', revoked.slice(4, 12));
    await runRefusalTiming({
      bin: BIN,
      config,
      env,
      token,
      unused,
      revoked,
      formatModule: FORMAT_MODULE,
    });
  }
  if (RUN_ATTACKS) {
    const { runAttacks } = await import('./attacks.js');
    // Targets missed are reported in the table (as the figures above), not as an exit status.
    await runAttacks({
      bin: BIN,
      config,
      env,
      token,
      formatModule: FORMAT_MODULE,
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    });
  }
  if (RUN_FLOOD) {
    const { runNeverVerifiedFlood } = await import('./attacks.js');
    await runNeverVerifiedFlood({
      bin: BIN,
      config,
      env,
      token,
      formatModule: FORMAT_MODULE,
    });
  }
  if (RUN_BEACON_BURST) {
    const { runHostVaryingBeacon } = await import('./attacks.js');
    await runHostVaryingBeacon({ bin: BIN, config, env });
  }
  if (RUN_TLS_HOLD) {
    const { runTlsHandshakeHold } = await import('./tls-hold.js');
    await runTlsHandshakeHold({ bin: BIN, config, env, token, dir });
  }
  if (ONLY === '') {
    const { runRateLimit } = await import('./ratelimit.js');
    await runRateLimit({ bin: BIN, env });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
