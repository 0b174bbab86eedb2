// BENCH_ONLY=soak npm run bench: a bounded soak run (issue 12). One daemon, started as a process,
// under a steady, moderate mix for BENCH_SOAK_SECONDS (default 600): authenticated lists and reads,
// actor creates and changes, SIP uploads, tokens created and revoked with the CLI, a setting
// flipped now and then. Every few seconds it samples the daemon's RSS and open file descriptors
// (/proc) and its event-loop delay (/metrics, whose histogram restarts at each scrape, so each
// sample is the delay since the one before). It prints a table per minute and a verdict: RSS and
// fds flat over the second half, the event-loop delay bounded and flat, no 5xx, no revoked token
// or stale setting honoured, every acknowledged write present at the end. Exit status 1 when the
// verdict fails. Only 127.0.0.1; bounded by a hard timeout.
//
//   BENCH_SOAK_SECONDS=600         the load's duration
//   BENCH_SOAK_SAMPLE_SECONDS=5    the sampling interval (shorter for short runs)
//   BENCH_SOAK_RATE=20             HTTP requests per second of the mix (at most 8 in flight)
//   BENCH_PG_URL=postgres://…      on PostgreSQL: a database of its own is created on that server
//                                  (through the database the URL names) and dropped at the end
//   BENCH_DAEMON_ROOT=…            the archivectl checkout to measure (bench/run.js passes its bin)
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { memoryOf, ms, percentile, processCpu, startDaemon } from './daemon.js';

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const SAMPLE_SECONDS = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? Math.min(5, Math.max(1, SECONDS / 30)));
const RATE = Number(process.env.BENCH_SOAK_RATE ?? 20);
const PG_URL = process.env.BENCH_PG_URL || null;
const IN_FLIGHT = 8;
/** A table row per minute; shorter runs get about ten rows. */
const ROW_SECONDS = SECONDS >= 600 ? 60 : Math.max(SAMPLE_SECONDS, Math.ceil(SECONDS / 10));
/** Token life cycle: one created (and, past three alive, the oldest revoked) this often. */
const TOKEN_EVERY_MS = Math.min(4000, (SECONDS * 1000) / 8);
const SETTINGS_EVERY_MS = Math.min(30_000, (SECONDS * 1000) / 4);
const HARD_TIMEOUT_SECONDS = SECONDS + 300;

// What "flat" means, stated before the run: the least-squares line through the second half's
// samples may rise by at most this much across that half.
const RSS_TOLERANCE = (medianMb) => Math.max(5, 0.05 * medianMb);
const FD_TOLERANCE = 3;
const LAG_P99_TOLERANCE_MS = 5;
// The delay as prom-client reads it (monitorEventLoopDelay, 10 ms resolution): an idle loop
// reads about 10 ms.
const LAG_MAX_LIMIT_MS = 100;
// The RSS moves in a sawtooth of about 20 MB over minutes (V8's heap growing, then collected):
// a shorter second half shows that, not a trend.
const MIN_TREND_MINUTES = 4;

const run = promisify(execFile);

/** A ZIP archive of one file, stored (APPNOTE 4.3.7, 4.3.12, 4.3.16): what a SIP upload needs. */
function storedZip(name, data) {
  const fileName = Buffer.from(name);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + fileName.length, 12);
  end.writeUInt32LE(30 + fileName.length + data.length, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}

/** Least-squares slope of ys over xs (per unit of x). */
function slope(xs, ys) {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const statusClass = (s) => (s === 0 ? 'err' : `${Math.floor(s / 100)}xx`);

/** The value of an unlabelled sample in the Prometheus text format, or NaN. */
const metric = (text, name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

/** The soak with the archivectl at `bin`; true when its verdict holds. */
export async function runSoak({ bin }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'archivectl-soak-'));
  const config = path.join(dir, 'config.json');
  // One name: a database left behind by a run cut short is dropped by the next one.
  const pgDatabase = PG_URL ? 'archivectl_soak' : null;
  let pgAdmin = null;
  const hardTimeout = setTimeout(() => {
    console.error(`soak: hard timeout of ${HARD_TIMEOUT_SECONDS} s reached; stopping`);
    rmSync(dir, { recursive: true, force: true });
    process.exit(3);
  }, HARD_TIMEOUT_SECONDS * 1000);
  hardTimeout.unref();

  if (PG_URL) {
    const { default: pg } = await import('pg');
    pgAdmin = new pg.Client({ connectionString: PG_URL });
    await pgAdmin.connect();
    await pgAdmin.query(`DROP DATABASE IF EXISTS ${pgDatabase}`);
    await pgAdmin.query(`CREATE DATABASE ${pgDatabase}`);
  }
  const database = PG_URL
    ? { client: 'pg', url: `${PG_URL.replace(/\/[^/]*$/, '')}/${pgDatabase}` }
    : { client: 'sqlite3', filename: './archive.sqlite3' };
  // Log level info, as in production: the access-log lines are part of what runs for ten minutes.
  writeFileSync(config, JSON.stringify({ database, dataDir: './data', log: { level: 'info' } }));
  const env = { ...process.env, ARCHIVECTL_AS: 'root' };
  delete env.ARCHIVE_CONFIG;
  delete env.DATABASE_URL;
  const cliSync = (args, extra = {}) =>
    execFileSync(process.execPath, [bin, '--config', config, ...args], {
      env: { ...env, ...extra },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  // During the load the CLI runs beside it, never blocking the load's own event loop.
  const cli = async (args) =>
    (await run(process.execPath, [bin, '--config', config, ...args], { env, encoding: 'utf8' })).stdout;

  let proc = null;
  try {
    cliSync(['migrate']);
    cliSync(['account', 'create', 'root', '--role', 'superuser'], { ARCHIVECTL_AS: '' });
    cliSync(['account', 'create', 'soak-editor', '--role', 'editor']);
    cliSync(['account', 'create', 'soak-reader', '--role', 'user']);
    const editor = cliSync(['token', 'create', 'soak-editor', '--name', 'soak', '--no-expires']).trim();
    const reader = cliSync(['token', 'create', 'soak-reader', '--name', 'soak', '--no-expires']).trim();
    const actors = Array.from({ length: 200 }, (_, i) => ({ name: `Seed actor ${i}`, type: 'person' }));
    writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify({ actors }));
    cliSync(['catalog', 'load', path.join(dir, 'catalog.json')]);
    cliSync(['settings', 'set', 'public_api', 'off']);
    cliSync(['settings', 'set', 'public_access', 'off']);

    const daemon = await startDaemon(config, env, bin);
    proc = daemon.proc;
    const base = daemon.url;
    const result = await soak({ base, pid: proc.pid, editor, reader, cli, dataDir: path.join(dir, 'data') });
    const alive = proc.exitCode === null && proc.signalCode === null;
    proc.kill('SIGTERM');
    if (alive) await new Promise((r) => proc.on('exit', r));
    return report(result, alive);
  } finally {
    if (proc && proc.exitCode === null) proc.kill('SIGKILL');
    if (pgAdmin) {
      await pgAdmin.query(`DROP DATABASE IF EXISTS ${pgDatabase} WITH (FORCE)`);
      await pgAdmin.end();
    }
    rmSync(dir, { recursive: true, force: true });
    clearTimeout(hardTimeout);
  }
}

/** The load, the sampling and the final check of the writes. */
async function soak({ base, pid, editor, reader, cli, dataDir }) {
  const t0 = Date.now();
  const since = () => (Date.now() - t0) / 1000;
  const calls = []; // { t, op, status, ms, expected }
  const unexpected = [];
  const fiveHundreds = [];

  async function call(method, urlPath, token, body) {
    const started = process.hrtime.bigint();
    const headers = token ? { authorization: `Bearer ${token}` } : {};
    if (body && !(body instanceof FormData)) headers['content-type'] = 'application/json';
    try {
      const res = await fetch(base + urlPath, {
        method,
        headers,
        body: body instanceof FormData || body === undefined ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      let json;
      if ((res.headers.get('content-type') ?? '').includes('json')) json = JSON.parse(text);
      return { status: res.status, json, text, ms: ms(started) };
    } catch (err) {
      return { status: 0, text: String(err.cause?.code ?? err.name ?? err), ms: ms(started) };
    }
  }

  /** One request of the mix, recorded with whether its answer is the one it should be. */
  async function op(name, method, urlPath, token, body, ok, accept401 = () => false) {
    const r = await call(method, urlPath, token, body);
    const expected = r.status === ok || (r.status === 401 && accept401());
    calls.push({ t: since(), op: name, status: r.status, ms: r.ms });
    if (r.status >= 500 || r.status === 0) fiveHundreds.push(`${name} ${method} ${urlPath} → ${r.status} ${r.text}`);
    else if (!expected) unexpected.push(`${name} ${method} ${urlPath} → ${r.status} ${r.text.slice(0, 200)}`);
    return expected ? r : null;
  }

  // What the mix has written and been told was written.
  const knownIds = Array.from({ length: 200 }, (_, i) => i + 1);
  const names = new Map(); // actor id → last acknowledged name
  const busy = new Set();
  const sips = []; // { identifier, id }
  const payload = Buffer.alloc(4096, 'soak ');

  // Tokens: the reader's own, plus up to three made by the CLI during the run.
  const live = [];
  const revoked = [];
  let revokedAccepted = 0;
  let revokedProbes = 0;
  const readToken = (n) => {
    const t = live.length && n % 2 ? live[n % live.length] : null;
    return t ?? { value: reader, revoking: false };
  };

  let n = 0;
  const MIX = 'LLLLLLLLSSSSOOQCCUUP'; // list, show, objects, search, create, update, upload (of 20)
  async function one() {
    const k = n++;
    const kind = MIX[k % MIX.length];
    const tok = readToken(k);
    const mayBe401 = () => tok.revoking;
    if (kind === 'L') {
      await op('list', 'GET', `/api/actors?perPage=25&page=${1 + (k % 8)}`, tok.value, undefined, 200, mayBe401);
    } else if (kind === 'S') {
      const id = knownIds[(k * 7919) % knownIds.length];
      await op('show', 'GET', `/api/actors/${id}`, tok.value, undefined, 200, mayBe401);
    } else if (kind === 'O') {
      await op('objects', 'GET', `/api/objects?perPage=25`, tok.value, undefined, 200, mayBe401);
    } else if (kind === 'Q') {
      await op('search', 'GET', `/api/actors?search=actor%20${k % 50}`, tok.value, undefined, 200, mayBe401);
    } else if (kind === 'C') {
      const name = `Soak actor ${k}`;
      const r = await op('create', 'POST', '/api/actors', editor, { name, type: 'person' }, 201);
      if (r) {
        names.set(r.json.data.id, name);
        knownIds.push(r.json.data.id);
      }
    } else if (kind === 'U') {
      // Only records with no change in flight: the last acknowledged name is then the one kept.
      const id = [...names.keys()].find((i) => !busy.has(i) && (i + k) % 5 === 0) ?? null;
      if (id === null) return;
      busy.add(id);
      const name = `Soak actor ${id} changed ${k}`;
      const r = await op('update', 'PUT', `/api/actors/${id}`, editor, { name }, 200);
      if (r) names.set(id, name);
      busy.delete(id);
    } else {
      const identifier = `soak-${k}`;
      const form = new FormData();
      form.set('identifier', identifier);
      form.set('title', `Soak submission ${k}`);
      form.set('file', new Blob([storedZip('payload.txt', payload)], { type: 'application/zip' }), 'sip.zip');
      const r = await op('upload', 'POST', '/api/sips/import', editor, form, 202);
      if (r) sips.push({ identifier, id: r.json.data.id });
    }
  }

  let inFlight = 0;
  let skipped = 0;
  const pending = new Set();
  const tick = setInterval(() => {
    if (inFlight >= IN_FLIGHT) {
      skipped++;
      return;
    }
    inFlight++;
    const p = one().finally(() => {
      inFlight--;
      pending.delete(p);
    });
    pending.add(p);
  }, 1000 / RATE);

  // Token life cycle through the CLI, and probes of revoked values (each must answer 401).
  const tokenEvents = []; // { t, kind }
  const cliFailures = [];
  async function probeRevoked(value) {
    const r = await call('GET', '/api/actors?perPage=1', value);
    revokedProbes++;
    calls.push({ t: since(), op: 'revoked probe', status: r.status, ms: r.ms, probe: true });
    if (r.status !== 401) {
      if (r.status >= 200 && r.status < 300) revokedAccepted++;
      else unexpected.push(`revoked probe → ${r.status} ${r.text.slice(0, 200)}`);
    }
  }
  let tokenNo = 0;
  async function tokenStep() {
    const created = JSON.parse(
      await cli(['token', 'create', 'soak-reader', '--name', `soak ${tokenNo++}`, '--no-expires', '--json']),
    );
    live.push({ id: created.id, value: created.token, revoking: false });
    tokenEvents.push({ t: since(), kind: 'created' });
    if (live.length > 3) {
      const old = live[0];
      old.revoking = true;
      live.shift();
      await cli(['token', 'revoke', old.id, '--json']);
      tokenEvents.push({ t: since(), kind: 'revoked' });
      revoked.push(old.value);
      await probeRevoked(old.value); // from the first request after the revocation returned
    }
    for (let i = 0; i < 2 && revoked.length; i++) await probeRevoked(revoked[(tokenNo * 31 + i) % revoked.length]);
  }

  // Settings: public_api flipped; an anonymous read must follow it at once.
  let publicApi = false;
  let staleSettings = 0;
  let flips = 0;
  async function settingsStep() {
    publicApi = !publicApi;
    await cli(['settings', 'set', 'public_api', publicApi ? 'on' : 'off']);
    flips++;
    const r = await call('GET', '/api/objects?perPage=1');
    calls.push({ t: since(), op: 'settings probe', status: r.status, ms: r.ms, probe: true });
    if (r.status !== (publicApi ? 200 : 401)) staleSettings++;
  }

  /** Runs `step` every `every` ms (never two at once) until the load ends. */
  function periodic(step, every) {
    let running = null;
    const timer = setInterval(() => {
      if (running) return;
      running = step()
        .catch((err) =>
          cliFailures.push(
            String(err.stderr || err.message)
              .trim()
              .slice(0, 300),
          ),
        )
        .finally(() => (running = null));
    }, every);
    return async () => {
      clearInterval(timer);
      await running;
    };
  }
  const stopTokens = periodic(tokenStep, TOKEN_EVERY_MS);
  const stopSettings = periodic(settingsStep, SETTINGS_EVERY_MS);

  // Samples: RSS, fds and CPU time from /proc, the event-loop delay and the heap from /metrics.
  // The load generator's own event-loop delay beside the daemon's tells a daemon that blocks
  // its loop from a machine that did not run either process for a while (2 shared cores).
  const own = monitorEventLoopDelay({ resolution: 10 });
  own.enable();
  const samples = [];
  async function sample() {
    const { rss } = memoryOf(pid);
    const fds = readdirSync(`/proc/${pid}/fd`).length;
    const cpu = processCpu(pid) / 100;
    const ownMax = own.max / 1e6;
    own.reset();
    const m = await call('GET', '/metrics');
    const text = m.status === 200 ? m.text : '';
    const t = since();
    const prev = samples.at(-1);
    samples.push({
      t,
      rss,
      fds,
      cpuPct: prev ? (100 * (cpu - prev.cpu)) / (t - prev.t) : NaN,
      cpu,
      ownMax,
      load: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
      lagMax: metric(text, 'archivectl_nodejs_eventloop_lag_max_seconds') * 1000,
      lagP99: metric(text, 'archivectl_nodejs_eventloop_lag_p99_seconds') * 1000,
      heap: metric(text, 'archivectl_nodejs_heap_size_used_bytes') / 2 ** 20,
      handles: metric(text, 'archivectl_nodejs_active_handles_total'),
    });
  }
  await sample();
  const sampler = setInterval(() => void sample(), SAMPLE_SECONDS * 1000);
  console.log(
    `soak: ${SECONDS} s on ${PG_URL ? 'PostgreSQL' : 'SQLite'}, ${RATE} req/s (at most ${IN_FLIGHT} in flight), ` +
      `a sample every ${SAMPLE_SECONDS} s, a token every ${TOKEN_EVERY_MS / 1000} s, ` +
      `a settings flip every ${SETTINGS_EVERY_MS / 1000} s`,
  );
  const progress = setInterval(
    () => console.log(`  ${Math.round(since())} s: ${calls.length} answers, RSS ${samples.at(-1).rss.toFixed(1)} MB`),
    60_000,
  );

  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  clearInterval(tick);
  clearInterval(progress);
  await Promise.all(pending);
  await stopTokens();
  await stopSettings();
  clearInterval(sampler);
  await sample();

  // Every acknowledged write, read back: actors with their last acknowledged name, submissions
  // as objects with their file in place.
  const missing = [];
  const ids = [...names.keys()];
  for (let i = 0; i < ids.length; i += IN_FLIGHT) {
    await Promise.all(
      ids.slice(i, i + IN_FLIGHT).map(async (id) => {
        const r = await call('GET', `/api/actors/${id}`, editor);
        if (r.status !== 200 || r.json.data.name !== names.get(id)) missing.push(`actor ${id}: ${r.status}`);
      }),
    );
  }
  for (let i = 0; i < sips.length; i += IN_FLIGHT) {
    await Promise.all(
      sips.slice(i, i + IN_FLIGHT).map(async ({ identifier, id }) => {
        const r = await call('GET', `/api/objects?identifier=${encodeURIComponent(identifier)}`, editor);
        const found = r.status === 200 && r.json.data.some((o) => o.identifier === identifier);
        if (!found) missing.push(`object ${identifier}: ${r.status}`);
        if (!existsSync(path.join(dataDir, 'sips', `${id}.zip`))) missing.push(`file of submission ${id}`);
      }),
    );
  }
  return {
    calls,
    samples,
    unexpected,
    fiveHundreds,
    skipped,
    tokenEvents,
    cliFailures,
    revokedAccepted,
    revokedProbes,
    revokedKept: revoked.length,
    staleSettings,
    flips,
    writes: { actors: names.size, changed: calls.filter((c) => c.op === 'update' && c.status === 200).length },
    sips: sips.length,
    missing,
  };
}

/** The table over time and the verdict; true when the verdict holds. */
function report(r, alive) {
  const rows = [];
  for (let start = 0; start < SECONDS; start += ROW_SECONDS) {
    const end = start + ROW_SECONDS;
    const inRow = (x) => x.t >= start && (x.t < end || end >= SECONDS);
    const cs = r.calls.filter(inRow);
    // Latency of the mix: a refused token's answer is delayed on purpose (limits.failedAuthDelayMs).
    const mix = cs.filter((c) => !c.probe).map((c) => c.ms);
    const ss = r.samples.filter(inRow);
    const byClass = {};
    for (const c of cs) byClass[statusClass(c.status)] = (byClass[statusClass(c.status)] ?? 0) + 1;
    const last = ss.at(-1) ?? {};
    rows.push([
      `${start}–${Math.min(end, SECONDS)}`,
      cs.length,
      ['2xx', '4xx', '5xx', 'err'].map((k) => byClass[k] ?? 0).join('/'),
      mix.length ? percentile(mix, 99).toFixed(1) : '',
      mix.length ? Math.max(...mix).toFixed(0) : '',
      last.rss?.toFixed(1) ?? '',
      last.heap?.toFixed(1) ?? '',
      ss.length ? `${Math.min(...ss.map((s) => s.fds))}–${Math.max(...ss.map((s) => s.fds))}` : '',
      ss.length ? Math.max(...ss.map((s) => s.lagP99)).toFixed(1) : '',
      ss.length ? Math.max(...ss.map((s) => s.lagMax)).toFixed(1) : '',
      ss.length ? Math.max(...ss.map((s) => s.ownMax)).toFixed(1) : '',
      ss.length ? (ss.reduce((a, s) => a + (s.cpuPct || 0), 0) / ss.length).toFixed(0) : '',
      ss.length ? Math.max(...ss.map((s) => s.load)).toFixed(2) : '',
    ]);
  }
  const head = [
    's',
    'answers',
    '2xx/4xx/5xx/err',
    'mix p99 ms',
    'mix max ms',
    'RSS MB',
    'heap MB',
    'fds',
    'loop p99 ms',
    'loop max ms',
    'generator loop max ms',
    'daemon CPU %',
    'load avg',
  ];
  console.log(`\n| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);

  // The second half's trends, from the samples taken in it.
  const half = r.samples.filter((s) => s.t >= SECONDS / 2);
  const minutes = half.map((s) => s.t / 60);
  const span = (minutes.at(-1) ?? 0) - (minutes[0] ?? 0);
  const rssMedian = percentile(
    half.map((s) => s.rss),
    50,
  );
  const rssSlope = slope(
    minutes,
    half.map((s) => s.rss),
  );
  const fdSlope = slope(
    minutes,
    half.map((s) => s.fds),
  );
  const lagSlope = slope(
    minutes,
    half.map((s) => s.lagP99),
  );
  const lagMax = Math.max(...r.samples.map((s) => s.lagMax));
  // A sample over the limit in which the load generator stalled at least half as long: the
  // machine, not the daemon's loop.
  const overLimit = r.samples.filter((s) => s.lagMax > LAG_MAX_LIMIT_MS);
  const machineStalls = overLimit.filter((s) => s.ownMax >= s.lagMax / 2);
  // A shorter half is shown, not judged (MIN_TREND_MINUTES).
  const judged = (met) => (span >= MIN_TREND_MINUTES ? met : null);
  const answers = {};
  for (const c of r.calls) answers[c.status] = (answers[c.status] ?? 0) + 1;
  const byOp = {};
  for (const c of r.calls) byOp[c.op] = (byOp[c.op] ?? 0) + 1;

  const checks = [
    [
      `RSS flat: ${rssSlope.toFixed(2)} MB/min over the second half, ${(rssSlope * span).toFixed(1)} MB across it`,
      `≤ ${RSS_TOLERANCE(rssMedian).toFixed(1)} MB (median ${rssMedian.toFixed(1)} MB)`,
      judged(rssSlope * span <= RSS_TOLERANCE(rssMedian)),
    ],
    [
      `fds flat: ${fdSlope.toFixed(2)} fds/min over the second half, ${(fdSlope * span).toFixed(1)} across it`,
      `≤ ${FD_TOLERANCE}`,
      judged(fdSlope * span <= FD_TOLERANCE),
    ],
    [
      `event-loop delay p99 flat: ${lagSlope.toFixed(2)} ms/min, ${(lagSlope * span).toFixed(1)} ms across the half`,
      `≤ ${LAG_P99_TOLERANCE_MS} ms`,
      judged(lagSlope * span <= LAG_P99_TOLERANCE_MS),
    ],
    [
      `event-loop delay max ${lagMax.toFixed(1)} ms; samples over the limit: ${overLimit.length}, ` +
        `of which the load generator stalled too: ${machineStalls.length}`,
      `≤ ${LAG_MAX_LIMIT_MS} ms, or the machine's stall`,
      overLimit.length === machineStalls.length,
    ],
    [`5xx and transport errors: ${r.fiveHundreds.length}`, '0', r.fiveHundreds.length === 0],
    [`other unexpected answers: ${r.unexpected.length}`, '0', r.unexpected.length === 0],
    [
      `revoked tokens accepted: ${r.revokedAccepted} (${r.revokedProbes} probes of ${r.revokedKept} revoked values)`,
      '0',
      r.revokedAccepted === 0 && r.revokedKept > 0,
    ],
    [`stale settings honoured: ${r.staleSettings} (of ${r.flips} flips)`, '0', r.staleSettings === 0 && r.flips > 0],
    [
      `acknowledged writes missing: ${r.missing.length} (${r.writes.actors} actors created, ` +
        `${r.writes.changed} changes, ${r.sips} SIPs)`,
      '0',
      r.missing.length === 0 && r.writes.actors > 0 && r.sips > 0,
    ],
    [`CLI runs failed: ${r.cliFailures.length}`, '0', r.cliFailures.length === 0],
    ['daemon alive at the end', 'yes', alive],
  ];
  console.log(`\nanswers by status: ${JSON.stringify(answers)}; by kind: ${JSON.stringify(byOp)}`);
  const created = r.tokenEvents.filter((e) => e.kind === 'created').length;
  const end = r.samples.at(-1);
  console.log(
    `ticks skipped (${IN_FLIGHT} in flight): ${r.skipped}; tokens created ${created}, revoked ${r.revokedKept}; ` +
      `final RSS ${end.rss.toFixed(1)} MB, fds ${end.fds}, active handles ${end.handles}`,
  );
  console.log('\n| check | target | met |\n|---|---|---|');
  for (const [what, target, met] of checks) {
    console.log(`| ${what} | ${target} | ${met === null ? 'not judged (half < 4 min)' : met ? 'yes' : 'NO'} |`);
  }
  for (const line of [...r.fiveHundreds, ...r.unexpected, ...r.missing, ...r.cliFailures].slice(0, 20)) {
    console.log(`  ${line}`);
  }
  return checks.every(([, , met]) => met !== false);
}
