// The attack section of `npm run bench` (BENCH_ONLY=attacks runs only this): the attacks of the
// security review as measured phases, side by side with a calm phase, in one run; each phase
// against a fresh daemon (same database, default configuration) unless BENCH_ATTACK_SAME_DAEMON=1.
//
//   calm  legitimate load only: CALM_CLIENTS clients from 127.0.0.1, each looping GET
//         /api/actors?perPage=5 with an already verified token (every 25th request closes its
//         connection, so legitimate clients also open new connections), plus 10 new tokens
//         created with the CLI and used for the first time (the baseline for (c) and (d)).
//   (a)   one raw connection from 127.0.0.2 pipelining 50,000 requests (forged well-formed
//         values with random ids; every 10th without a token), written as fast as the socket
//         accepts them, answers read and counted.
//   (b)   5,000 connections from 50 source addresses (127.0.0.2…51, 100 each): half send one
//         keep-alive request and stay idle, half send nothing; a connection the daemon closes
//         is reopened after 1 s (backing off to 8 s while they are refused or cut at once).
//   (c)   64 clients from 127.0.0.2…65 looping forged values (valid format, fresh wrong secret)
//         for the id of the legitimate token, which the daemon has verified already.
//   (d)   the same for the id of a token the daemon has never verified: 10 times, a token is
//         created, the flood moves to its id, and BENCH_FLOOD_LEAD_MS later its owner uses it.
//   During calm, (c) and (d): 10 × a new token's first use from 127.0.0.1, retried on 429/503
//   per Retry-After until 2 s; success = 200 within 2 s.
//   (e)-(g) run against a catalogue grown by BENCH_HEAVY_ACTORS (default 100,000) actors with
//   GND ids and comments (loaded once, before the first of them; public_access is on):
//   (e)   BENCH_ATTACK_SLOWREAD (96) connections from 8 addresses asking for GET /api/tei/actors
//         without a token and reading nothing after the status line; a 503 is asked again
//         after 1 s, an answered one held unread.
//   (f)   BENCH_ATTACK_SLOWBODY (512) connections from 8 addresses, each a complete head of
//         POST /api/nonexistent (JSON, Content-Length 1000) and then its body a byte every
//         100 ms; a connection the daemon closes is opened again after 1 s.
//   (g)   BENCH_ATTACK_HEAVY (8) clients looping on heavy requests by turns: ?ids=1 of the TEI
//         export (the bench's token), the BEACON dump of actors and a 50-query reconciliation
//         batch (both without a token); a 503 is retried after its Retry-After.
//   During (e)-(g) /healthz is also asked in a loop (50 ms apart), and its p90 is reported.
//
// Every phase runs BENCH_ATTACK_SECONDS (default 10) of legitimate load while the attack runs,
// every socket is destroyed at its end, and the whole section has a hard timeout. The attack
// traffic comes from a worker thread (bench/attack-worker.js), so the legitimate clients' event
// loop — where latencies are measured — is not the attacker's. Only the defaults of the daemon's
// configuration are used.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { memoryOf, processCpu, UNIT_ENV, UNIT_NODE_FLAGS } from './daemon.js';

const num = (name, dflt) => {
  const v = process.env[name];
  return v === undefined || v === '' || !Number.isFinite(Number(v)) ? dflt : Number(v);
};
const T_SECONDS = num('BENCH_ATTACK_SECONDS', 10);
const COOLDOWN_MS = num('BENCH_ATTACK_COOLDOWN_MS', 2000);
const SAME_DAEMON = process.env.BENCH_ATTACK_SAME_DAEMON === '1';
const WARM_MS = num('BENCH_ATTACK_WARM_MS', 1000);
const PHASES = (process.env.BENCH_ATTACK_PHASES || 'calm,a,b,c,d,e,f,g').split(',').map((p) => p.trim());
const CALM_CLIENTS = num('BENCH_CALM_CLIENTS', 4);
const THINK_MS = num('BENCH_CALM_THINK_MS', 0);
const PIPELINE = num('BENCH_ATTACK_PIPELINE', 50_000);
const IDLE_WANTED = num('BENCH_ATTACK_IDLE', 5_000);
const IDLE_ADDRESSES = 50;
const IDLE_REOPEN = process.env.BENCH_ATTACK_IDLE_REOPEN !== '0';
const FLOOD_CLIENTS = 64;
const NEW_TOKENS = 10;
const LEAD_MS = num('BENCH_FLOOD_LEAD_MS', 300);
const HEAVY_ACTORS = num('BENCH_HEAVY_ACTORS', 100_000);
const SLOWREAD = num('BENCH_ATTACK_SLOWREAD', 96);
const SLOWBODY = num('BENCH_ATTACK_SLOWBODY', 512);
const HEAVY_CLIENTS = num('BENCH_ATTACK_HEAVY', 8);
const HEAVY_ADDRESSES = 8;
const HEALTHZ_EVERY_MS = 50;
const LEGIT_TIMEOUT_MS = 5_000;
const NEW_TOKEN_MS = 2_000;
const RSS_LIMIT_MB = 160;
const P99_FLOOR_MS = 50;
// Each phase's own time and its daemon's start and stop; loading the archive-size catalogue for
// (e)-(g) takes a few minutes at most.
const HEAVY_PHASES = PHASES.some((p) => ['e', 'f', 'g'].includes(p));
const HARD_SECONDS = num(
  'BENCH_ATTACK_TIMEOUT_SECONDS',
  Math.max(240, PHASES.length * (T_SECONDS + 40) + 60 + (HEAVY_PHASES ? 300 : 0)),
);
const PHASE_HARD_MS = (T_SECONDS + 60) * 1000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** For the losing side of a race: must not keep the process alive once the race is over. */
const limit = (ms) => new Promise((r) => setTimeout(r, ms).unref());
const now = () => performance.now();
const sorted = (xs) => Float64Array.from(xs).sort();
const pct = (s, p) => (s.length ? s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] : NaN);
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const fmtCounts = (o) =>
  Object.entries(o ?? {})
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}:${v}`)
    .join(' ') || '-';

function openFilesLimit(pid = 'self') {
  try {
    const m = /Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    return m ? (m[1] === 'unlimited' ? Infinity : Number(m[1])) : NaN;
  } catch {
    return NaN;
  }
}

/** Jiffies: the machine's busy and total time (/proc/stat), a process's user+system time. */
function machineCpu() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3] + (f[4] ?? 0);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}
const cpus = () => {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm)?.length ?? 1;
  } catch {
    return 1;
  }
};

/** One GET from 127.0.0.1 with a deadline; resolves {status, ms, retryAfter} or {error, ms}. */
function get(target, { token, agent, close = false, timeoutMs = LEGIT_TIMEOUT_MS }) {
  return new Promise((resolve) => {
    const t0 = now();
    let done = false;
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...r, ms: now() - t0 });
    };
    const headers = { Authorization: `Bearer ${token}` };
    if (close) headers.Connection = 'close';
    const req = http.get(
      {
        host: target.host,
        port: target.port,
        path: '/api/actors?perPage=5',
        headers,
        agent,
        localAddress: '127.0.0.1',
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => finish({ status: res.statusCode, retryAfter: res.headers['retry-after'] }));
        res.on('error', (err) => finish({ error: err.code ?? err.message }));
      },
    );
    req.on('error', (err) => finish({ error: err.code ?? err.message }));
    const timer = setTimeout(() => {
      finish({ error: 'timeout' });
      req.destroy();
    }, timeoutMs);
  });
}

/** One GET /healthz on `agent`; resolves {status, ms} or {error, ms}. */
function healthz(target, agent) {
  return new Promise((resolve) => {
    const t0 = now();
    const req = http.get({ host: target.host, port: target.port, path: '/healthz', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: now() - t0 }));
      res.on('error', (err) => resolve({ error: err.code ?? err.message, ms: now() - t0 }));
    });
    req.on('error', (err) => resolve({ error: err.code ?? err.message, ms: now() - t0 }));
    req.setTimeout(LEGIT_TIMEOUT_MS, () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
  });
}

/** The daemon as a child process: its log is drained and counted (statuses, error lines). */
class Daemon {
  constructor({ bin, config, env }) {
    Object.assign(this, { bin, config, env });
    this.proc = null;
    this.port = 0;
    this.exits = [];
    this.sink = null; // per-phase counters, set by the phase
  }
  start() {
    return new Promise((resolve, reject) => {
      const args = [this.bin, '--config', this.config, 'serve', '--host', '127.0.0.1', '--port', String(this.port)];
      // Started as the README's unit starts it (daemon.js UNIT_NODE_FLAGS, UNIT_ENV).
      const proc = spawn(process.execPath, [...UNIT_NODE_FLAGS, ...args], {
        env: { ...UNIT_ENV, ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      this.proc = proc;
      this.stopping = false;
      this.stderrTail = '';
      let partial = '';
      let started = false;
      const timer = setTimeout(() => {
        if (!started) {
          proc.kill('SIGKILL');
          reject(new Error('the daemon did not start within 30 s'));
        }
      }, 30_000);
      proc.stdout.setEncoding('utf8');
      proc.stdout.on('data', (chunk) => {
        const text = partial + chunk;
        const cut = text.lastIndexOf('\n');
        partial = cut < 0 ? text : text.slice(cut + 1);
        if (cut < 0) return;
        const lines = text.slice(0, cut);
        if (!started) {
          const m = /"url":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(lines);
          if (m) {
            started = true;
            clearTimeout(timer);
            this.port = Number(m[1]);
            resolve(this);
          }
        }
        const sink = this.sink;
        if (!sink) return;
        for (const m of lines.matchAll(/"status":(\d{3})/g)) sink.statuses[m[1]] = (sink.statuses[m[1]] ?? 0) + 1;
        if (lines.includes('"level":50') || lines.includes('"level":60')) {
          for (const line of lines.split('\n')) {
            if (!/"level":(50|60)/.test(line)) continue;
            sink.errorLines++;
            if (sink.errorSamples.length < 3) sink.errorSamples.push(line.slice(0, 400));
          }
        }
      });
      proc.stderr.setEncoding('utf8');
      proc.stderr.on('data', (c) => (this.stderrTail = (this.stderrTail + c).slice(-4000)));
      proc.on('exit', (code, signal) => {
        this.exits.push({
          code,
          signal,
          asked: this.stopping,
          at: new Date().toISOString(),
          stderr: this.stderrTail.trim().slice(-1500),
        });
        if (this.sink) this.sink.exited = { code, signal };
        if (!started) {
          clearTimeout(timer);
          reject(new Error(`daemon exited ${code ?? signal} before listening: ${this.stderrTail.trim().slice(-500)}`));
        }
      });
    });
  }
  get alive() {
    return this.proc !== null && this.proc.exitCode === null && this.proc.signalCode === null;
  }
  get target() {
    return { host: '127.0.0.1', port: this.port };
  }
  async stop() {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    this.stopping = true;
    proc.kill('SIGTERM');
    if (await Promise.race([exited.then(() => true), limit(15_000).then(() => false)])) return;
    proc.kill('SIGKILL');
    await Promise.race([exited, limit(5_000)]);
  }
  kill() {
    if (this.alive) this.proc.kill('SIGKILL');
  }
}

class AttackWorker {
  constructor(formatModule) {
    this.formatModule = formatModule;
    this.worker = null;
  }
  async ensure() {
    if (this.worker) return;
    this.worker = new Worker(new URL('./attack-worker.js', import.meta.url), {
      workerData: { formatModule: this.formatModule },
    });
    this.worker.on('error', (err) => {
      console.error(`attack worker error: ${err.stack ?? err}`);
      this.worker = null;
    });
    await this.wait('ready', 10_000);
  }
  wait(type, timeoutMs) {
    const w = this.worker;
    return new Promise((resolve, reject) => {
      const on = (m) => {
        if (m.type !== type) return;
        clearTimeout(t);
        w.off('message', on);
        resolve(m);
      };
      const t = setTimeout(() => {
        w.off('message', on);
        reject(new Error(`attack worker: no "${type}" within ${timeoutMs} ms`));
      }, timeoutMs);
      w.on('message', on);
    });
  }
  async call(msg, replyType, timeoutMs) {
    await this.ensure();
    const reply = this.wait(replyType, timeoutMs);
    this.worker.postMessage(msg);
    try {
      return await reply;
    } catch (err) {
      await this.terminate(); // a stuck worker is replaced; terminating it destroys its sockets
      throw err;
    }
  }
  async terminate() {
    const w = this.worker;
    this.worker = null;
    if (w) await Promise.race([w.terminate(), limit(5_000)]);
  }
}

export async function runAttacks({ bin, config, env, token, formatModule, cleanup = () => {} }) {
  const started = Date.now();
  const loadavg = () => {
    try {
      return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    } catch {
      return '?';
    }
  };
  const loadAtStart = loadavg();
  const daemon = new Daemon({ bin, config, env });
  const attacker = new AttackWorker(formatModule);
  const notes = [];
  const results = [];
  let aborted = false;

  // The bench holds the attack connections (up to IDLE + a few hundred fds); it cannot raise its
  // own limit, so it shrinks (b) to fit and says so.
  const ownLimit = openFilesLimit();
  let IDLE = IDLE_WANTED;
  if (Number.isFinite(ownLimit) && ownLimit < IDLE_WANTED + 500) {
    IDLE = Math.max(100, ownLimit - 500);
    notes.push(
      `ulimit -n is ${ownLimit}: (b) reduced to ${IDLE} connections; run with "ulimit -n ${IDLE_WANTED + 1000}" for the full figure`,
    );
  }

  const watchdog = setTimeout(() => {
    console.error(`attack section: hard timeout of ${HARD_SECONDS} s reached; killing the daemon and stopping`);
    aborted = true;
    daemon.kill();
    void attacker.terminate();
    printTable(results, notes, true);
    cleanup();
    process.exit(3);
  }, HARD_SECONDS * 1000);
  const killOnExit = () => daemon.kill();
  process.on('exit', killOnExit);

  // Sampling: daemon RSS every 100 ms, its open fds every 500 ms, this thread's event-loop delay.
  let rec = null;
  const readRss = () => {
    try {
      return memoryOf(daemon.proc.pid).rss;
    } catch {
      return NaN;
    }
  };
  const rssTimer = setInterval(() => {
    if (!rec || !daemon.alive) return;
    const mb = readRss();
    if (Number.isFinite(mb)) {
      rec.rssMax = Math.max(rec.rssMax, mb);
      rec.rssSamples++;
    }
  }, 100);
  const fdTimer = setInterval(() => {
    if (!rec || !daemon.alive) return;
    try {
      rec.fdMax = Math.max(rec.fdMax, readdirSync(`/proc/${daemon.proc.pid}/fd`).length);
    } catch {
      /* exited meanwhile */
    }
  }, 500);
  const LOOP_RESOLUTION_MS = 5;
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loopDelay.enable();

  const cliAsync = (...args) =>
    new Promise((resolve, reject) => {
      // Not execFileSync: blocking this thread would stall the legitimate clients it measures.
      execFile(
        process.execPath,
        [bin, '--config', config, ...args],
        { env, encoding: 'utf8', timeout: 20_000 },
        (err, stdout, stderr) =>
          err ? reject(new Error(`${args.join(' ')}: ${err.message} ${String(stderr).trim()}`)) : resolve(stdout),
      );
    });

  /**
   * The daemon a phase runs against: a fresh one by default (the one before is stopped with
   * SIGTERM; its shutdown time is noted when long), so that each phase's RSS and latency are its
   * own — a Node process keeps the memory an earlier phase made it grow to. With
   * BENCH_ATTACK_SAME_DAEMON=1 one daemon serves all phases (restarted only if it died or stopped
   * answering). Then the legitimate token is verified once, and WARM_MS of legitimate load
   * (not counted) warms the JIT and SQLite's cache.
   */
  async function daemonFor(label) {
    let restart = !SAME_DAEMON || !daemon.proc;
    if (!restart && daemon.alive) {
      let answered = false;
      for (let i = 0; i < 20 && !answered; i++) {
        answered = (await get(daemon.target, { token, agent: false, timeoutMs: 2_000 })).status === 200;
        if (!answered) await sleep(500);
      }
      if (!answered) {
        notes.push(`${label}: the daemon did not answer 200 within 10 s; restarted`);
        restart = true;
      }
    } else if (!restart) {
      const e = daemon.exits.at(-1);
      notes.push(`${label}: the daemon had exited (${e?.code ?? e?.signal}); restarted`);
      restart = true;
    }
    if (!restart) return;
    await stopDaemon();
    await daemon.start();
    daemonOf = label;
    const limitFds = openFilesLimit(daemon.proc.pid);
    if (Number.isFinite(limitFds) && limitFds < IDLE + 500 && !notes.some((n) => n.startsWith("the daemon's ulimit"))) {
      notes.push(`the daemon's ulimit -n is ${limitFds}: (b) can exhaust its descriptors`);
    }
    const r = await get(daemon.target, { token, agent: false, timeoutMs: 10_000 });
    if (r.status !== 200) throw new Error(`the daemon answers the legitimate token with ${r.status ?? r.error}`);
    const stop = { stop: false };
    const scratch = { latencies: [], ok: 0, errors: {} };
    const warmers = Array.from({ length: CALM_CLIENTS }, () => legitLoop(scratch, stop));
    await sleep(WARM_MS);
    stop.stop = true;
    await Promise.race([Promise.all(warmers), limit(LEGIT_TIMEOUT_MS + 1_000)]);
    await sleep(200);
  }

  /** SIGTERM (SIGKILL after 15 s); what the shutdown took and logged is noted when unusual. */
  let daemonOf = null;
  async function stopDaemon() {
    if (!daemon.alive) return;
    const sd = { statuses: {}, errorLines: 0, errorSamples: [], exited: null };
    daemon.sink = sd;
    const t0 = Date.now();
    await daemon.stop();
    daemon.sink = null;
    const took = Date.now() - t0;
    const e = daemon.exits.at(-1);
    const of = `the daemon of ${daemonOf ?? 'the first phase'}`;
    if (took > 3_000)
      notes.push(`${of} took ${(took / 1000).toFixed(1)} s to stop on SIGTERM (timeouts.shutdownMs is 10 s)`);
    if (e && e.code !== 0)
      notes.push(`${of} ended with ${e.code ?? e.signal} after SIGTERM${e.stderr ? `: ${e.stderr}` : ''}`);
    const fivexx = Object.entries(sd.statuses)
      .filter(([k]) => k.startsWith('5'))
      .reduce((a, [, v]) => a + v, 0);
    if (fivexx || sd.errorLines) {
      notes.push(
        `${of} logged during its shutdown: statuses ${fmtCounts(sd.statuses)}, ${sd.errorLines} error lines, e.g. ${sd.errorSamples[0]?.slice(0, 300) ?? '-'}`,
      );
    }
  }

  /**
   * (e)-(g) need a catalogue of archive size: HEAVY_ACTORS more actors, each with a GND id (for
   * the BEACON dump) and a comment, loaded once with the CLI before the first of them.
   */
  let heavyLoaded = false;
  async function loadHeavyCatalogue() {
    if (heavyLoaded) return;
    heavyLoaded = true;
    const comment = 'A comment of some length, as archivists write them. '.repeat(4);
    const actors = Array.from({ length: HEAVY_ACTORS }, (_, i) => ({
      name: `Heavy, Actor ${i}`,
      gnd: `1${String(10_000_000 + i)}X`,
      comment,
      type: i % 3 ? 'person' : 'corporate_body',
    }));
    const file = path.join(path.dirname(config), 'heavy-catalogue.json');
    writeFileSync(file, JSON.stringify({ actors }));
    const t0 = now();
    await new Promise((resolve, reject) =>
      execFile(
        process.execPath,
        [bin, '--config', config, 'catalog', 'load', file],
        { env, timeout: 600_000 },
        (err, _out, stderr) => (err ? reject(new Error(`catalog load: ${err.message} ${stderr}`)) : resolve()),
      ),
    );
    rmSync(file, { force: true });
    notes.push(`(e)-(g): ${HEAVY_ACTORS} actors loaded in ${f1((now() - t0) / 1000)} s before the first of them`);
  }

  /** /healthz asked in a loop, HEALTHZ_EVERY_MS apart, on a keep-alive connection of its own. */
  async function healthzLoop(rec, stop) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (!stop.stop) {
      const r = await healthz(daemon.target, agent);
      if (r.status === 200) rec.healthz.push(r.ms);
      else rec.healthzErrors[r.status ?? r.error] = (rec.healthzErrors[r.status ?? r.error] ?? 0) + 1;
      await sleep(HEALTHZ_EVERY_MS);
    }
    agent.destroy();
  }

  async function legitLoop(rec, stop) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let n = 0;
    while (!stop.stop) {
      n++;
      const r = await get(daemon.target, { token, agent, close: n % 25 === 0 });
      rec.latencies.push(r.ms);
      if (r.status !== undefined && r.status >= 200 && r.status < 300) {
        rec.ok++;
      } else {
        const k = r.status ?? r.error;
        rec.errors[k] = (rec.errors[k] ?? 0) + 1;
        if (r.error) await sleep(20); // no hot loop on a refusing socket
      }
      if (THINK_MS > 0) await sleep(THINK_MS);
    }
    agent.destroy();
  }

  /** A new token's first use: retried on 429/503 per Retry-After until 2 s after the first try. */
  async function firstUse(value) {
    const t0 = now();
    const deadline = t0 + NEW_TOKEN_MS;
    const seen = [];
    for (;;) {
      // The request itself may run past 2 s (then it counts as a failure, with its real time).
      const r = await get(daemon.target, { token: value, agent: false, timeoutMs: NEW_TOKEN_MS + 8_000 });
      seen.push(r.status ?? r.error);
      const el = now() - t0;
      if (r.status === 200) return { ok: el <= NEW_TOKEN_MS, ms: el, seen };
      if (r.status === 429 || r.status === 503) {
        const wait = Math.max(50, Number(r.retryAfter ?? 0) * 1000);
        if (now() + wait < deadline) {
          await sleep(wait);
          continue;
        }
      }
      return { ok: false, ms: el, seen };
    }
  }

  async function probes(rec, phaseStart, flooding) {
    const spacing = Math.max(0, (T_SECONDS * 1000 - 1500) / NEW_TOKENS);
    for (let k = 0; k < NEW_TOKENS && !aborted && !rec.cut; k++) {
      const at = phaseStart + 500 + k * spacing;
      if (now() < at) await sleep(at - now());
      const p = { k };
      rec.newTokens.push(p);
      try {
        const c0 = now();
        const value = (await cliAsync('token', 'create', 'bench', '--name', `${rec.key} ${k} ${Date.now()}`)).trim();
        p.cliMs = now() - c0;
        if (flooding) {
          // (d): the flood moves to the new token's id before its owner's first request.
          await attacker.call({ type: 'selector', selector: value.slice(4, 12) }, 'selector-ok', 5_000);
          await sleep(LEAD_MS);
        }
        Object.assign(p, await firstUse(value));
      } catch (err) {
        p.ok = false;
        p.seen = [`bench error: ${err.message.slice(0, 200)}`];
      }
    }
  }

  async function phase(key, label, attack, withProbes, { heavy = false } = {}) {
    if (aborted || !PHASES.includes(key)) return;
    clock(label);
    try {
      if (heavy) await loadHeavyCatalogue();
      await daemonFor(label);
    } catch (err) {
      notes.push(`${label}: skipped, no daemon (${err.message})`);
      results.push({ key, label, skipped: true });
      return;
    }
    rec = {
      key,
      label,
      rssMax: readRss(),
      rssStart: readRss(),
      rssSamples: 0,
      fdMax: 0,
      latencies: [],
      ok: 0,
      errors: {},
      newTokens: withProbes ? [] : null,
      healthz: heavy ? [] : null,
      healthzErrors: {},
      attack: null,
      daemonLog: { statuses: {}, errorLines: 0, errorSamples: [], exited: null },
    };
    daemon.sink = rec.daemonLog;
    loopDelay.reset();
    const t0 = Date.now();
    const cpu0 = { machine: machineCpu(), daemon: processCpu(daemon.proc.pid), self: processCpu(process.pid) };
    try {
      if (attack)
        rec.attackInfo = (
          await attacker.call(
            { type: 'start', kind: attack.kind, opts: attack.opts, target: daemon.target },
            'started',
            30_000,
          )
        ).info;
      const stop = { stop: false };
      const phaseStart = now();
      const clients = Array.from({ length: CALM_CLIENTS }, () => legitLoop(rec, stop));
      if (heavy) clients.push(healthzLoop(rec, stop));
      const work = Promise.all([
        sleep(T_SECONDS * 1000),
        withProbes ? probes(rec, phaseStart, attack?.flooding === true) : null,
      ]);
      const finished = await Promise.race([work.then(() => true), limit(PHASE_HARD_MS).then(() => false)]);
      if (!finished) {
        rec.cut = true;
        notes.push(`${label}: cut at the phase limit of ${PHASE_HARD_MS / 1000} s`);
      }
      rec.measuredMs = now() - phaseStart;
      stop.stop = true;
      await Promise.race([Promise.all(clients), limit(LEGIT_TIMEOUT_MS + 1_000)]);
      if (attack) {
        const r = await attacker.call({ type: 'stop' }, 'stopped', 10_000);
        rec.attack = r.stats;
        rec.attackInfo = { ...rec.attackInfo, ...r.info };
      }
    } catch (err) {
      notes.push(`${label}: ${err.message}`);
      await attacker.terminate();
    }
    rec.rssEnd = readRss();
    // The histogram records the whole interval between ticks; the delay is what exceeds it.
    rec.loopP99 = Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_RESOLUTION_MS);
    rec.loopMax = Math.max(0, loopDelay.max / 1e6 - LOOP_RESOLUTION_MS);
    rec.alive = daemon.alive;
    // Where the machine's CPU went during the phase, in % of one CPU: the daemon, this bench
    // (both threads), and everything else (CLI runs for new tokens, and other people's work —
    // a busy machine makes the latencies worse for reasons that are not the daemon's).
    const m1 = machineCpu();
    if (cpu0.machine && m1 && m1.total > cpu0.machine.total) {
      const n = cpus();
      const span = (m1.total - cpu0.machine.total) / n; // jiffies per CPU
      const pctOf = (j) => (100 * j) / span;
      rec.cpu = {
        machine: pctOf(m1.busy - cpu0.machine.busy),
        daemon: pctOf(processCpu(daemon.proc.pid) - cpu0.daemon),
        bench: pctOf(processCpu(process.pid) - cpu0.self),
        of: 100 * n,
      };
      // /proc/stat is sampled per tick, process times are exact: the difference is approximate
      // (a few % either way), hence clamped at 0.
      rec.cpu.other = Math.max(
        0,
        rec.cpu.machine - (Number.isFinite(rec.cpu.daemon) ? rec.cpu.daemon : 0) - rec.cpu.bench,
      );
    }
    rec.seconds = (Date.now() - t0) / 1000;
    daemon.sink = null;
    results.push(rec);
    printPhase(rec);
    rec = null;
    if (SAME_DAEMON) await sleep(COOLDOWN_MS);
  }

  function clock(s) {
    console.error(`[attacks +${((Date.now() - started) / 1000).toFixed(0)} s] ${s}`);
  }
  try {
    const selector = token.slice(4, 12);

    await phase('calm', 'calm', null, process.env.BENCH_CALM_PROBES !== '0');
    await phase(
      'a',
      `(a) ${PIPELINE} pipelined`,
      { kind: 'pipeline', opts: { count: PIPELINE, noTokenEvery: 10, batch: 500, reconnectDelayMs: 5 } },
      false,
    );
    await phase(
      'b',
      `(b) ${IDLE} idle conns`,
      {
        kind: 'idle',
        opts: {
          count: IDLE,
          addresses: IDLE_ADDRESSES,
          rampConcurrency: 256,
          reopenDelayMs: 1_000,
          reopenMaxDelayMs: 8_000,
          maxReopens: IDLE_REOPEN ? 100_000 : 0,
          connectTimeoutMs: 5_000,
          rampTimeoutMs: 15_000,
        },
      },
      false,
    );
    await phase(
      'c',
      '(c) 64 forged, known id',
      { kind: 'forged', opts: { clients: FLOOD_CLIENTS, selector, maxRequests: 2_000_000, reconnectDelayMs: 2 } },
      true,
    );
    await phase(
      'd',
      '(d) 64 forged, new id',
      {
        kind: 'forged',
        flooding: true,
        opts: { clients: FLOOD_CLIENTS, selector: null, maxRequests: 2_000_000, reconnectDelayMs: 2 },
      },
      true,
    );
    await phase(
      'e',
      `(e) ${SLOWREAD} TEI non-readers`,
      {
        kind: 'slowread',
        opts: { connections: SLOWREAD, addresses: HEAVY_ADDRESSES, path: '/api/tei/actors', reopenDelayMs: 1_000 },
      },
      false,
      { heavy: true },
    );
    await phase(
      'f',
      `(f) ${SLOWBODY} slow bodies`,
      {
        kind: 'slowbody',
        opts: {
          connections: SLOWBODY,
          addresses: HEAVY_ADDRESSES,
          path: '/api/nonexistent',
          contentLength: 1000,
          byteEveryMs: 100,
          reopenDelayMs: 1_000,
        },
      },
      false,
      { heavy: true },
    );
    await phase(
      'g',
      `(g) ${HEAVY_CLIENTS} heavy clients`,
      { kind: 'heavy', opts: { clients: HEAVY_CLIENTS, token, batch: 50 } },
      false,
      { heavy: true },
    );
  } finally {
    clearInterval(rssTimer);
    clearInterval(fdTimer);
    loopDelay.disable();
    await attacker.terminate();
    await stopDaemon();
    clearTimeout(watchdog);
    process.off('exit', killOnExit);
  }
  for (const e of daemon.exits.filter((x) => !x.asked))
    notes.push(
      `the daemon exited by itself: ${e.code ?? e.signal} at ${e.at}${e.stderr ? ` — stderr: ${e.stderr}` : ''}`,
    );
  notes.push(`load average (1/5/15 min) at the start ${loadAtStart}, at the end ${loadavg()}, on ${cpus()} CPUs`);
  notes.push(
    `attack section: ${((Date.now() - started) / 1000).toFixed(0)} s; phases of ${T_SECONDS} s, ${SAME_DAEMON ? `one daemon, cooldown ${COOLDOWN_MS} ms` : 'a fresh daemon each'}, warm-up ${WARM_MS} ms; ${CALM_CLIENTS} legitimate clients, think ${THINK_MS} ms`,
  );
  return printTable(results, notes, false);
}

function phaseFigures(r) {
  const s = sorted(r.latencies);
  const h = r.healthz ? sorted(r.healthz) : null;
  const errors = Object.values(r.errors).reduce((a, b) => a + b, 0);
  const nt = r.newTokens;
  return {
    s,
    n: s.length,
    p50: pct(s, 50),
    p99: pct(s, 99),
    max: s.length ? s[s.length - 1] : NaN,
    errors,
    newOk: nt ? nt.filter((p) => p.ok).length : null,
    healthzP90: h ? pct(h, 90) : NaN,
    healthzN: h ? h.length : 0,
  };
}

function printPhase(r) {
  const f = phaseFigures(r);
  const lines = [];
  lines.push(
    `${r.label}: RSS ${f1(r.rssStart)} → max ${f1(r.rssMax)} → end ${f1(r.rssEnd)} MB (${r.rssSamples} samples), fds max ${r.fdMax}, daemon ${r.alive ? 'alive' : 'NOT ALIVE'}`,
  );
  if (r.cpu)
    lines.push(
      `  CPU (% of one; machine has ${r.cpu.of}): daemon ${f1(r.cpu.daemon)}, bench ${f1(r.cpu.bench)}, everything else ${f1(r.cpu.other)}`,
    );
  lines.push(
    `  legitimate: ${f.n} requests in ${f1((r.measuredMs ?? 0) / 1000)} s, p50 ${f2(f.p50)} p99 ${f2(f.p99)} max ${f2(f.max)} ms, errors ${f.errors}${f.errors ? ` (${fmtCounts(r.errors)})` : ''}; bench loop delay p99 ${f1(r.loopP99)} max ${f1(r.loopMax)} ms`,
  );
  if (r.healthz) {
    lines.push(
      `  /healthz: ${f.healthzN} answered 200, p90 ${f2(f.healthzP90)} ms${Object.keys(r.healthzErrors).length ? `, failed ${fmtCounts(r.healthzErrors)}` : ''}`,
    );
  }
  if (r.attack) {
    const a = r.attack;
    const extra = [];
    if (a.sent !== undefined)
      extra.push(`sent ${a.sent}, answered ${a.answered}, unanswered at stop ${Math.max(0, a.sent - a.answered)}`);
    if (a.connects) extra.push(`connects ${a.connects}`);
    if (a.connectFailures) extra.push(`connect failures ${a.connectFailures}`);
    if (a.closedByDaemon) extra.push(`closed by daemon ${a.closedByDaemon}`);
    if (a.openMax !== undefined) extra.push(`open max ${a.openMax}, min after ramp ${a.openMinAfterRamp ?? '-'}`);
    if (a.heldMax !== undefined) extra.push(`answers held unread at most ${a.heldMax}`);
    if (a.byKind) extra.push(`by kind ${fmtCounts(a.byKind)}`);
    lines.push(
      `  attacker answers: ${fmtCounts(a.statuses)}; ${extra.join(', ')}${Object.keys(a.socketErrors).length ? `; socket errors ${fmtCounts(a.socketErrors)}` : ''}`,
    );
  }
  if (r.attackInfo && Object.keys(r.attackInfo).length) lines.push(`  attack info: ${JSON.stringify(r.attackInfo)}`);
  if (r.newTokens) {
    lines.push(
      `  new tokens: ${f.newOk}/${NEW_TOKENS} within 2 s; first use ms: ${r.newTokens.map((p) => `${f1(p.ms)}${p.ok ? '' : `!(${(p.seen ?? []).join(',')})`}`).join(' ')}`,
    );
  }
  const log = r.daemonLog;
  lines.push(
    `  daemon access log statuses: ${fmtCounts(log.statuses)}${log.errorLines ? `; error lines ${log.errorLines}: ${log.errorSamples.join(' | ')}` : ''}${log.exited ? `; EXITED ${JSON.stringify(log.exited)}` : ''}`,
  );
  console.error(lines.join('\n'));
  r.detail = lines;
}

function printTable(results, notes, partial) {
  const calm = results.find((r) => r.key === 'calm' && !r.skipped);
  const calmP99 = calm ? phaseFigures(calm).p99 : NaN;
  const p99Limit = Math.max(P99_FLOOR_MS, Number.isFinite(calmP99) ? 3 * calmP99 : 0);
  const rows = [];
  let allPass = results.length === PHASES.length;
  for (const r of results) {
    if (r.skipped) {
      rows.push([r.label, '-', '-', '-', '-', '-', '-', '-', '-', '-', 'FAIL (skipped)']);
      allPass = false;
      continue;
    }
    const f = phaseFigures(r);
    const why = [];
    if (!(r.rssMax <= RSS_LIMIT_MB)) why.push('RSS');
    if (f.errors > 0) why.push('errors');
    if (f.n === 0) why.push('no requests');
    if (r.key !== 'calm' && !(f.p99 <= p99Limit)) why.push('p99');
    if (r.healthz && (f.healthzN === 0 || Object.keys(r.healthzErrors).length > 0)) why.push('healthz');
    if (f.newOk !== null && f.newOk < 9) why.push('new token');
    if (!r.alive || r.daemonLog.exited) why.push('daemon died');
    if (r.cut) why.push('cut');
    if (why.length) allPass = false;
    rows.push([
      r.label,
      f1(r.rssMax),
      String(f.n),
      f2(f.p50),
      f2(f.p99),
      f2(f.max),
      String(f.errors),
      f.newOk === null ? '' : `${f.newOk}/${NEW_TOKENS}`,
      r.healthz ? f2(f.healthzP90) : '',
      r.cpu ? f1(r.cpu.other) : '-',
      why.length ? `FAIL (${why.join(', ')})` : 'PASS',
    ]);
  }
  const head = [
    'phase',
    'RSS max MB',
    'legit req',
    'p50 ms',
    'p99 ms',
    'max ms',
    'errors',
    'new ≤2s',
    'healthz p90',
    'other CPU % ≈',
    'verdict',
  ];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (cells) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(w[i]) : c.padStart(w[i])))
      .join('  ')
      .trimEnd();
  const out = [];
  out.push('');
  out.push(
    `attacks${partial ? ' (PARTIAL: hard timeout)' : ''} — targets: daemon RSS ≤ ${RSS_LIMIT_MB} MB throughout; legitimate p99 ≤ max(${P99_FLOOR_MS}, 3 × calm p99 = ${f2(3 * calmP99)}) = ${f2(p99Limit)} ms with 0 errors; new token 200 within 2 s ≥ 9/10; /healthz answered 200 throughout (e)-(g)`,
  );
  out.push(fmt(head));
  for (const r of rows) out.push(fmt(r));
  out.push('attacker answers (status:count) and new-token first uses:');
  for (const r of results) {
    if (r.skipped) continue;
    const a = r.attack;
    const parts = [];
    if (a) {
      parts.push(`${fmtCounts(a.statuses)}`);
      if (a.sent !== undefined && a.sent > a.answered) parts.push(`unanswered at stop:${a.sent - a.answered}`);
      if (Object.keys(a.socketErrors).length) parts.push(`socket errors ${fmtCounts(a.socketErrors)}`);
      if (a.closedByDaemon) parts.push(`closed by daemon:${a.closedByDaemon}`);
    }
    if (r.newTokens) parts.push(`new tokens ms: ${r.newTokens.map((p) => `${f1(p.ms)}${p.ok ? '' : '!'}`).join(' ')}`);
    parts.push(
      `daemon 5xx:${Object.entries(r.daemonLog.statuses)
        .filter(([k]) => k.startsWith('5'))
        .reduce((s, [, v]) => s + v, 0)}`,
    );
    out.push(`  ${r.label}: ${parts.join('; ')}`);
  }
  const busy = results.filter((r) => r.cpu && r.cpu.other > 25);
  if (busy.length) {
    out.push(
      `WARNING: other processes used the CPU during ${busy.map((r) => r.key).join(', ')} (column "other CPU %", in % of one CPU, includes this bench's CLI runs): latencies are inflated by the machine, not only by the daemon; rerun on a quiet machine`,
    );
  }
  for (const n of notes) out.push(`note: ${n}`);
  console.log(out.join('\n'));
  return { allPass, lines: out };
}

// ---------------------------------------------------------------------------------------------
// (h) The never-verified id, flooded for a whole phase (BENCH_ONLY=flood, and after the attack
// section): FLOOD_CLIENTS clients from 127.0.0.2… loop forged values for the id of a token the
// daemon has never verified, so verifications run (failure budgets, the KDF queue, refusals held
// to their deadline and answered with Connection: close). Beside them CALM_CLIENTS clients loop
// with a token verified (cached) before; their p99 is compared with the same clients' calm p99,
// measured just before on the same daemon. BENCH_FLOOD_RUNS runs (default 5), each with a fresh
// daemon: the verdict asks every run to pass, since the stalls this looks for were sporadic.
// The machine's TCP counters (namespace-wide: other work on this machine counts too) and the
// daemon's own event-loop delay (/metrics) say where a stall came from.
const FLOOD_RUNS = num('BENCH_FLOOD_RUNS', 5);

/** TCP counters of this network namespace (/proc/net/netstat TcpExt, /proc/net/snmp Tcp). */
function tcpCounters() {
  const out = {};
  for (const file of ['/proc/net/netstat', '/proc/net/snmp']) {
    try {
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      for (let i = 0; i + 1 < lines.length; i += 2) {
        const names = lines[i].split(/\s+/);
        const values = lines[i + 1].split(/\s+/);
        if (names[0] !== 'TcpExt:' && names[0] !== 'Tcp:') continue;
        for (let k = 1; k < names.length; k++) out[names[k]] = Number(values[k]);
      }
    } catch {
      /* not Linux */
    }
  }
  return out;
}
const TCP_WATCHED = ['ListenOverflows', 'ListenDrops', 'TCPSynRetrans', 'TCPTimeouts', 'RetransSegs'];
const tcpDelta = (a, b) =>
  TCP_WATCHED.filter((k) => b[k] !== undefined && b[k] - (a[k] ?? 0) > 0)
    .map((k) => `${k}:${b[k] - (a[k] ?? 0)}`)
    .join(' ') || 'none';

/**
 * The daemon's event-loop delay since the last read (its /metrics, from 127.0.0.1; prom-client
 * samples at 10 ms, so an idle loop reads about 10 ms), or null.
 */
function daemonLoopDelay(target) {
  return new Promise((resolve) => {
    const req = http.get({ ...target, path: '/metrics', localAddress: '127.0.0.1', agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        const value = (name) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text)?.[1]);
        const max = value('archivectl_nodejs_eventloop_lag_max_seconds');
        const p99 = value('archivectl_nodejs_eventloop_lag_p99_seconds');
        resolve(res.statusCode === 200 && Number.isFinite(max) ? { max: max * 1000, p99: p99 * 1000 } : null);
      });
    });
    req.on('error', () => resolve(null));
    req.setTimeout(5_000, () => req.destroy());
  });
}

/** CALM_CLIENTS clients looping with `token` for `ms`; their latencies and failures. */
async function legitFor(target, token, ms) {
  const rec = { latencies: [], errors: {} };
  const end = now() + ms;
  const client = async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let n = 1; now() < end; n++) {
      // Every 25th request closes its connection: legitimate clients open new ones too.
      const r = await get(target, { token, agent, close: n % 25 === 0 });
      rec.latencies.push(r.ms);
      if (!(r.status >= 200 && r.status < 300)) {
        const k = r.status ?? r.error;
        rec.errors[k] = (rec.errors[k] ?? 0) + 1;
        if (r.error) await sleep(20);
      }
    }
    agent.destroy();
  };
  await Promise.all(Array.from({ length: CALM_CLIENTS }, client));
  const s = sorted(rec.latencies);
  const errors = Object.values(rec.errors).reduce((a, b) => a + b, 0);
  return { n: s.length, p50: pct(s, 50), p99: pct(s, 99), max: s.at(-1) ?? NaN, errors, errorKinds: rec.errors };
}

export async function runNeverVerifiedFlood({ bin, config, env, token, formatModule }) {
  const attacker = new AttackWorker(formatModule);
  const daemon = new Daemon({ bin, config, env });
  const killOnExit = () => daemon.kill();
  process.on('exit', killOnExit);
  const watchdog = setTimeout(
    () => {
      console.error('never-verified flood: hard timeout reached; stopping');
      daemon.kill();
      process.exit(3);
    },
    FLOOD_RUNS * (2 * T_SECONDS + 60) * 1000,
  );
  const runs = [];
  try {
    for (let i = 1; i <= FLOOD_RUNS; i++) {
      await daemon.start();
      const target = daemon.target;
      const first = await get(target, { token, agent: false, timeoutMs: 10_000 });
      if (first.status !== 200)
        throw new Error(`the daemon answers the legitimate token with ${first.status ?? first.error}`);
      await legitFor(target, token, WARM_MS); // JIT and SQLite's cache, not counted
      // A token the daemon has never seen: created now, never used by its owner.
      const fresh = await new Promise((resolve, reject) =>
        execFile(
          process.execPath,
          [bin, '--config', config, 'token', 'create', 'bench', '--name', `flood ${i} ${Date.now()}`],
          { env, encoding: 'utf8', timeout: 20_000 },
          (err, out) => (err ? reject(new Error(`token create: ${err.message}`)) : resolve(out.trim())),
        ),
      );
      const calm = await legitFor(target, token, T_SECONDS * 1000);
      const loopBefore = await daemonLoopDelay(target);
      const tcp0 = tcpCounters();
      let rssMax = 0;
      const rssTimer = setInterval(() => {
        try {
          rssMax = Math.max(rssMax, memoryOf(daemon.proc.pid).rss);
        } catch {
          /* gone */
        }
      }, 100);
      await attacker.call(
        {
          type: 'start',
          kind: 'forged',
          opts: { clients: FLOOD_CLIENTS, selector: fresh.slice(4, 12), maxRequests: 2_000_000, reconnectDelayMs: 2 },
          target,
        },
        'started',
        30_000,
      );
      let flood;
      let attack;
      try {
        flood = await legitFor(target, token, T_SECONDS * 1000);
      } finally {
        attack = (await attacker.call({ type: 'stop' }, 'stopped', 10_000)).stats;
        clearInterval(rssTimer);
      }
      const tcp = tcpDelta(tcp0, tcpCounters());
      const loop = await daemonLoopDelay(target);
      await daemon.stop();
      const limitMs = Math.max(P99_FLOOR_MS, 3 * calm.p99);
      const pass = flood.p99 <= limitMs && flood.errors === 0 && calm.errors === 0;
      const run = { i, calm, flood, limitMs, pass, attack, tcp, loop, loopBefore, rssMax };
      runs.push(run);
      console.error(
        `(h) run ${i}: calm p99 ${f2(calm.p99)} max ${f2(calm.max)} ms; flood p50 ${f2(flood.p50)} p99 ${f2(flood.p99)} max ${f2(flood.max)} ms (limit ${f2(limitMs)}), ` +
          `${flood.n} requests, errors ${flood.errors}; forged answers ${fmtCounts(attack?.statuses)}; TCP ${tcp}; ` +
          `daemon loop max ${f1(loop?.max)} ms; RSS max ${f1(rssMax)} MB → ${pass ? 'PASS' : 'FAIL'}`,
      );
    }
  } finally {
    clearTimeout(watchdog);
    await attacker.terminate();
    await daemon.stop();
    process.off('exit', killOnExit);
  }
  const lines = [
    '',
    `(h) ${FLOOD_CLIENTS} clients flooding a never-verified id for ${T_SECONDS} s, ${FLOOD_RUNS} runs (a fresh daemon each) — target: cached-token p99 ≤ max(${P99_FLOOR_MS} ms, 3 × calm p99) with 0 errors, every run`,
    'run  calm p99 ms  flood p50 ms  flood p99 ms  flood max ms  limit ms  legit req  errors  daemon loop max ms  RSS max MB  TCP counters (machine-wide)  verdict',
  ];
  for (const r of runs)
    lines.push(
      `${String(r.i).padStart(3)}  ${f2(r.calm.p99).padStart(11)}  ${f2(r.flood.p50).padStart(12)}  ${f2(r.flood.p99).padStart(12)}  ${f2(r.flood.max).padStart(12)}  ${f2(r.limitMs).padStart(8)}  ${String(r.flood.n).padStart(9)}  ${String(r.flood.errors).padStart(6)}  ${f1(r.loop?.max).padStart(18)}  ${f1(r.rssMax).padStart(10)}  ${r.tcp.padEnd(27)}  ${r.pass ? 'PASS' : 'FAIL'}`,
    );
  lines.push(`  forged answers per run: ${runs.map((r) => fmtCounts(r.attack?.statuses)).join(' | ')}`);
  const allPass = runs.length === FLOOD_RUNS && runs.every((r) => r.pass);
  lines.push(
    `(h) ${allPass ? 'PASS' : 'FAIL'}: ${runs.filter((r) => r.pass).length}/${FLOOD_RUNS} runs within the limit`,
  );
  console.log(lines.join('\n'));
  return { allPass, lines };
}

// ---------------------------------------------------------------------------------------------
// (i) Host-varying BEACON burst (BENCH_ONLY=beacon, and after the attack section): a BEACON dump
// is a file built once per change of its register; if its key took the request's Host (or
// X-Forwarded-Host), every new Host would cost a full build, and evict real dumps. With
// BEACON_ACTORS more actors that have GND ids (loaded first), a fresh daemon, and public_access
// on (anonymous dumps, as run.js sets it): a legitimate harvester loops on the full dump of
// actors alone for T_SECONDS (calm), then again while BEACON_ATTACKERS clients from
// 127.0.0.2… loop on the same dump, first all with one Host, then each request with a Host and
// X-Forwarded-Host never used before. The harvester's medians are compared side by side (the
// burst with one Host is what serving the dumps costs; a new Host each must cost no more); the
// dump files in the exports folder are counted (the builds) and the daemon's CPU measured.
const BEACON_ACTORS = num('BENCH_BEACON_ACTORS', 20_000);
const BEACON_ATTACKERS = num('BENCH_BEACON_ATTACKERS', 8);
const BEACON_ROUNDS = num('BENCH_BEACON_ROUNDS', 4);
const BEACON_PATH = '/api/actors?format=beacon';

/** One full GET of `path` (the body read and counted), with extra headers; {status, ms, bytes} or {error, ms}. */
function fetchWhole(target, { path: p, headers = {}, agent, localAddress = '127.0.0.1', timeoutMs = 30_000 }) {
  return new Promise((resolve) => {
    const t0 = now();
    let done = false;
    let bytes = 0;
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...r, ms: now() - t0 });
    };
    const req = http.get({ host: target.host, port: target.port, path: p, headers, agent, localAddress }, (res) => {
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => finish({ status: res.statusCode, bytes, retryAfter: res.headers['retry-after'] }));
      res.on('error', (err) => finish({ error: err.code ?? err.message }));
    });
    req.on('error', (err) => finish({ error: err.code ?? err.message }));
    const timer = setTimeout(() => {
      finish({ error: 'timeout' });
      req.destroy();
    }, timeoutMs);
  });
}

export async function runHostVaryingBeacon({ bin, config, env }) {
  const exportsDir = path.join(path.dirname(config), 'data', 'exports');
  const daemon = new Daemon({ bin, config, env });
  const killOnExit = () => daemon.kill();
  process.on('exit', killOnExit);
  const watchdog = setTimeout(
    () => {
      console.error('host-varying BEACON burst: hard timeout reached; stopping');
      daemon.kill();
      process.exit(3);
    },
    (2 * T_SECONDS + 300) * 1000,
  );
  const lines = [];
  try {
    const actors = Array.from({ length: BEACON_ACTORS }, (_, i) => ({
      name: `Beacon, Actor ${i}`,
      gnd: `1${String(20_000_000 + i)}X`,
      type: 'person',
    }));
    const file = path.join(path.dirname(config), 'beacon-catalogue.json');
    writeFileSync(file, JSON.stringify({ actors }));
    await new Promise((resolve, reject) =>
      execFile(
        process.execPath,
        [bin, '--config', config, 'catalog', 'load', file],
        { env, timeout: 600_000 },
        (err) => (err ? reject(new Error(`catalog load: ${err.message}`)) : resolve()),
      ),
    );
    rmSync(file, { force: true });
    await daemon.start();
    const target = daemon.target;
    const first = await fetchWhole(target, { path: BEACON_PATH });
    if (first.status !== 200) throw new Error(`the BEACON dump answers ${first.status ?? first.error} without a token`);

    /** The harvester: full dumps in a loop on a keep-alive connection, for `ms`. */
    const harvest = async (ms, rec = { latencies: [], errors: {} }) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (const end = now() + ms; now() < end;) {
        const r = await fetchWhole(target, { path: BEACON_PATH, agent });
        if (r.status === 200) rec.latencies.push(r.ms);
        else {
          const k = r.status ?? r.error;
          rec.errors[k] = (rec.errors[k] ?? 0) + 1;
          await sleep(r.retryAfter ? Number(r.retryAfter) * 1000 : 50);
        }
      }
      agent.destroy();
      return rec;
    };
    const figures = (rec) => {
      const s = sorted(rec.latencies);
      return { n: s.length, p50: pct(s, 50), p90: pct(s, 90), max: s.at(-1) ?? NaN, errors: rec.errors };
    };

    await harvest(WARM_MS); // JIT and SQLite's cache, not counted
    const calm = figures(await harvest(T_SECONDS * 1000));

    /**
     * The harvester beside BEACON_ATTACKERS clients for `ms`: each request with a new Host
     * (`varying`), or all one; added to `b`.
     */
    const burst = async (varying, ms, b) => {
      const stop = { stop: false };
      const attacker = async (k) => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        const localAddress = `127.0.0.${2 + k}`;
        while (!stop.stop) {
          const host = varying ? `h${hostsUsed++}.attacker.example` : 'archive.example.org';
          b.hosts.add(host);
          const r = await fetchWhole(target, {
            path: BEACON_PATH,
            agent,
            localAddress,
            headers: { Host: host, 'X-Forwarded-Host': `x.${host}` },
          });
          b.sent++;
          const key = r.status ?? r.error;
          b.statuses[key] = (b.statuses[key] ?? 0) + 1;
          if (r.error) await sleep(20);
        }
        agent.destroy();
      };
      const cpu0 = processCpu(daemon.proc.pid);
      // Each build ends in a rename to a name of its own (the text's hash): the names that appear are the builds.
      const builtNames = new Set();
      const watcher = watch(exportsDir, (_event, name) => {
        if (name?.startsWith('beacon-') && existsSync(path.join(exportsDir, name))) builtNames.add(name);
      });
      const t0 = now();
      const attackers = Array.from({ length: BEACON_ATTACKERS }, (_, k) => attacker(k));
      await harvest(ms, b.legit);
      stop.stop = true;
      await Promise.race([Promise.all(attackers), limit(35_000)]);
      // Jiffies (1/100 s on Linux) of the daemon's CPU time over the burst.
      b.cpuSeconds += (processCpu(daemon.proc.pid) - cpu0) / 100;
      b.seconds += (now() - t0) / 1000;
      watcher.close();
      b.built += builtNames.size;
    };
    let hostsUsed = 0;
    const fresh = () => ({
      legit: { latencies: [], errors: {} },
      sent: 0,
      statuses: {},
      hosts: new Set(),
      cpuSeconds: 0,
      seconds: 0,
      built: 0,
    });
    // Alternated in rounds, so that the machine's own ups and downs fall on both alike.
    const same = fresh();
    const varying = fresh();
    for (let round = 0; round < BEACON_ROUNDS; round++) {
      await burst(false, (T_SECONDS * 1000) / BEACON_ROUNDS, same);
      await burst(true, (T_SECONDS * 1000) / BEACON_ROUNDS, varying);
    }
    await daemon.stop();
    const harvester = (label, h) =>
      `    ${label.padEnd(38)} ${String(h.n).padStart(4)} dumps, median ${f2(h.p50).padStart(7)} ms, p90 ${f2(h.p90).padStart(7)} ms, max ${f2(h.max).padStart(7)} ms, median ×${f2(h.p50 / calm.p50)} of alone${Object.keys(h.errors).length ? `, refused ${fmtCounts(h.errors)}` : ''}`;
    const attackers = (label, b) =>
      `    ${label.padEnd(38)} ${b.sent} requests, ${b.hosts.size} distinct Host values, answers ${fmtCounts(b.statuses)}; daemon CPU ${f1(b.cpuSeconds)} s in ${f1(b.seconds)} s; dumps built ${b.built}`;
    const sameH = figures(same.legit);
    const varyingH = figures(varying.legit);
    lines.push(
      '',
      `(i) host-varying BEACON burst: ${BEACON_ATTACKERS} clients (127.0.0.2…) looping on ${BEACON_PATH} (${f1(first.bytes / 1024)} KiB, ${BEACON_ACTORS} more actors with GND ids, no token) beside one harvester; ${T_SECONDS} s alone, then ${T_SECONDS} s of each burst in ${BEACON_ROUNDS} alternating rounds, one daemon`,
      harvester('harvester alone:', calm),
      harvester('harvester, burst with one Host:', sameH),
      harvester('harvester, burst with a new Host each:', varyingH),
      attackers('attackers with one Host:', same),
      attackers('attackers with a new Host each:', varying),
      `    a new Host each vs one Host: harvester median ×${f2(varyingH.p50 / sameH.p50)}, attackers served ×${f2(varying.sent / same.sent)}, daemon CPU ×${f2(varying.cpuSeconds / same.cpuSeconds)}`,
    );
  } finally {
    clearTimeout(watchdog);
    await daemon.stop();
    process.off('exit', killOnExit);
  }
  console.log(lines.join('\n'));
  return { lines };
}
