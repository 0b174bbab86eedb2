// The TLS handshake hold (`BENCH_ONLY=tls npm run bench`, and after the attack section of a full
// run): one address opens BENCH_TLS_HOLD (default 1,000) TCP connections to a daemon serving
// HTTPS and never finishes a handshake (half send nothing, half stop in the middle of their
// ClientHello); a connection the daemon closes is opened again after 1 s (backing off to 8 s
// while it is refused at once), for
// BENCH_TLS_HOLD_SECONDS (default 15, past the default `timeouts.headersMs` of 10 s, so the
// handshake deadline is seen at work). Beside it, one legitimate client on 127.0.0.1 asks GET
// /api/actors?perPage=5 in a loop, each time on a new TLS connection (a handshake, then the
// request), first for the same time without the attack (calm), then during it.
//
// Printed: the held connections the daemon accepted (its open file descriptors over the calm
// figure, 1 s after the burst and at most during the phase), the daemon's open file descriptors before, at most and
// after the attacker closed everything, the legitimate client's median and p99 (calm and under
// attack) and its failures, and how long SIGTERM takes with the held connections open. The
// daemon runs with the default configuration plus a certificate made by openssl.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { startDaemon } from './daemon.js';

const num = (name, dflt) => {
  const v = process.env[name];
  return v === undefined || v === '' || !Number.isFinite(Number(v)) ? dflt : Number(v);
};
const HOLD = num('BENCH_TLS_HOLD', 1000);
const SECONDS = num('BENCH_TLS_HOLD_SECONDS', 15);
const ATTACKER = '127.0.0.13';
const REOPEN_MS = 1000;
const LEGIT_TIMEOUT_MS = 5000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] : NaN;
};
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');

function fdsOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

/** A real ClientHello, as node's TLS client sends it (captured by a plain TCP server). */
async function clientHello() {
  const capture = net.createServer();
  await new Promise((resolve) => capture.listen(0, '127.0.0.1', resolve));
  const hello = new Promise((resolve) => capture.once('connection', (s) => s.once('data', resolve)));
  const client = tls.connect({ host: '127.0.0.1', port: capture.address().port, rejectUnauthorized: false });
  client.on('error', () => {});
  const bytes = await hello;
  client.destroy();
  capture.close();
  return bytes;
}

/** One GET on a new TLS connection from 127.0.0.1: {status, ms} or {error, ms}. */
function legitGet(url, token) {
  return new Promise((resolve) => {
    const t0 = now();
    const req = https.get(
      `${url}/api/actors?perPage=5`,
      {
        agent: false,
        rejectUnauthorized: false,
        localAddress: '127.0.0.1',
        headers: { Authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: now() - t0 }));
        res.on('error', (err) => resolve({ error: err.code ?? err.message, ms: now() - t0 }));
      },
    );
    req.on('error', (err) => resolve({ error: err.code ?? err.message, ms: now() - t0 }));
    req.setTimeout(LEGIT_TIMEOUT_MS, () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
  });
}

/** The legitimate client's loop for `ms`: latencies of its 200s, and its failures by kind. */
async function legitFor(url, token, ms) {
  const times = [];
  const failures = {};
  const end = now() + ms;
  while (now() < end) {
    const r = await legitGet(url, token);
    if (r.status === 200) times.push(r.ms);
    else failures[r.error ?? r.status] = (failures[r.error ?? r.status] ?? 0) + 1;
  }
  return { times, failures };
}

/**
 * The attacker: HOLD connections from ATTACKER. One the daemon closes is opened again after 1 s,
 * backing off to 8 s while it is refused or cut within a second of its connect (as phase (b) of
 * bench/attacks.js does: without it, a thousand SYNs a second from one address overflow the
 * listen backlog, which no limit of the daemon's can help).
 */
function holdHandshakes(port, hello) {
  const sockets = new Set();
  let stopped = false;
  let opened = 0;
  let closedByServer = 0;
  const half = hello.subarray(0, hello.length >> 1);
  const one = (i, backoff) => {
    if (stopped) return;
    const s = net.connect({ host: '127.0.0.1', port, localAddress: ATTACKER });
    sockets.add(s);
    opened++;
    let connectedAt = NaN;
    s.on('connect', () => {
      connectedAt = now();
      if (i % 2) s.write(half); // stalled in the middle of its ClientHello
    });
    s.on('error', () => {});
    s.on('close', () => {
      sockets.delete(s);
      if (stopped) return;
      closedByServer++;
      const cutAtOnce = !(now() - connectedAt >= 1000);
      const next = cutAtOnce ? Math.min(8 * REOPEN_MS, backoff * 2) : REOPEN_MS;
      setTimeout(() => one(i, next), cutAtOnce ? backoff : REOPEN_MS).unref();
    });
  };
  for (let i = 0; i < HOLD; i++) one(i, REOPEN_MS);
  return {
    stats: () => ({ opened, closedByServer }),
    stop: () => {
      stopped = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
}

export async function runTlsHandshakeHold({ bin, config, env, token, dir }) {
  console.log('\nTLS handshake hold (bench/tls-hold.js)');
  const key = path.join(dir, 'tls-key.pem');
  const cert = path.join(dir, 'tls-cert.pem');
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'].concat([
        '-keyout',
        key,
        '-out',
        cert,
      ]),
      { stdio: 'ignore' },
    );
  } catch (err) {
    console.log(
      `  skipped: openssl could not make a certificate (${err.code ?? err.message}); Debian package "openssl"`,
    );
    return null;
  }
  const tlsConfig = path.join(dir, 'config-tls.json');
  const base = JSON.parse(readFileSync(config, 'utf8'));
  writeFileSync(tlsConfig, JSON.stringify({ ...base, tls: { cert, key } }), { mode: 0o600 });
  const { proc, url } = await startDaemon(tlsConfig, env, bin);
  const port = Number(new URL(url).port);
  const hello = await clientHello();
  try {
    await legitGet(url, token); // the token's one KDF run happens here, not in the figures
    const calm = await legitFor(url, token, SECONDS * 1000);
    const fdsBefore = fdsOf(proc.pid);

    const attack = holdHandshakes(port, hello);
    let fdsMax = fdsBefore;
    const sampler = setInterval(() => (fdsMax = Math.max(fdsMax, fdsOf(proc.pid))), 200);
    const legit = legitFor(url, token, SECONDS * 1000);
    await sleep(1000);
    const fdsAfterBurst = fdsOf(proc.pid);
    const underAttack = await legit;
    clearInterval(sampler);
    const { opened, closedByServer } = attack.stats();
    attack.stop();
    await sleep(2000); // the daemon sees the attacker's closes
    const fdsAfter = fdsOf(proc.pid);

    // SIGTERM with HOLD connections in their handshake.
    const again = holdHandshakes(port, hello);
    await sleep(1000);
    const heldAtStop = fdsOf(proc.pid) - fdsBefore;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    const t0 = now();
    proc.kill('SIGTERM');
    const stopMs = await Promise.race([exited.then(() => now() - t0), sleep(30_000).then(() => NaN)]);
    again.stop();

    const figures = {
      attempts: HOLD,
      heldAfterBurst: fdsAfterBurst - fdsBefore,
      heldMax: fdsMax - fdsBefore,
      opened,
      closedByServer,
      fdsBefore,
      fdsMax,
      fdsAfter,
      calm: { median: pct(calm.times, 50), p99: pct(calm.times, 99), n: calm.times.length, failures: calm.failures },
      attack: {
        median: pct(underAttack.times, 50),
        p99: pct(underAttack.times, 99),
        n: underAttack.times.length,
        failures: underAttack.failures,
      },
      heldAtStop,
      stopMs,
    };
    printFigures(figures);
    return figures;
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
}

function printFigures(r) {
  const failures = (f) =>
    Object.entries(f)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ') || 'none';
  const rows = [
    [
      `connections of ${ATTACKER} the daemon holds (its fds over calm), 1 s after ${r.attempts} connects`,
      r.heldAfterBurst,
    ],
    ['  at most during the phase', r.heldMax],
    ['  connections opened / closed by the daemon during the phase', `${r.opened} / ${r.closedByServer}`],
    [
      "daemon's open fds: before / at most / after the attacker closed all",
      `${r.fdsBefore} / ${r.fdsMax} / ${r.fdsAfter}`,
    ],
    [
      `legitimate GET on a new TLS connection, calm: median / p99 ms (n)`,
      `${f1(r.calm.median)} / ${f1(r.calm.p99)} (${r.calm.n})`,
    ],
    ['  during the hold: median / p99 ms (n)', `${f1(r.attack.median)} / ${f1(r.attack.p99)} (${r.attack.n})`],
    ['  p99 ratio hold / calm', f1(r.attack.p99 / r.calm.p99)],
    ['  failures calm / during the hold', `${failures(r.calm.failures)} / ${failures(r.attack.failures)}`],
    [`SIGTERM to exit with ${r.heldAtStop} connections in the handshake, ms`, f1(r.stopMs)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`);
}
