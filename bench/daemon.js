// What the benchmark scenarios share: starting the built daemon as a process (never left behind:
// every daemon started here is killed when the benchmark exits) and the figures' arithmetic.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const OWN_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'archivectl');

const daemons = new Set();
process.on('exit', () => {
  for (const p of daemons) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

/**
 * The memory settings of the README's systemd unit, under which the daemon is measured as it is
 * deployed: two malloc arenas instead of eight per core (environment), and V8's young generation
 * in 8 MB semi-spaces instead of 16 with the old generation grown by 50 % over what a full
 * collection leaves (node's flags; the second one node refuses in NODE_OPTIONS). A setting
 * already in the environment is kept; BENCH_NODE_FLAGS (space-separated, may be empty) replaces
 * the flags.
 */
export const UNIT_ENV = { MALLOC_ARENA_MAX: '2' };
export const UNIT_NODE_FLAGS =
  process.env.BENCH_NODE_FLAGS !== undefined
    ? process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean)
    : ['--max-semi-space-size=8', '--heap-growing-percent=50'];

/**
 * The CPU the servers under measurement are pinned to, and the one the load generator is, when
 * the machine has two or more and `taskset` is there: sharing cores with the generator made
 * consecutive rounds of one server differ by a third. Null: not pinned.
 */
let pinning;
export function pinningOf() {
  if (pinning === undefined) {
    const cpus = os.cpus().length;
    pinning =
      cpus < 2 || spawnSync('taskset', ['-c', '0', 'true']).status !== 0
        ? null
        : { server: String(cpus - 1), load: '0' };
  }
  return pinning;
}

/** A process's CPU time so far, user and system, in clock ticks (USER_HZ, 100 on Linux); NaN when gone. */
export function processCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command, which is in parentheses and may hold ") " itself.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]); // utime, stime
  } catch {
    return NaN;
  }
}

/** A process's resident set now and its high-water mark, in MB (/proc/<pid>/status). */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: mb('VmRSS'), hwm: mb('VmHWM') };
}

/**
 * A server process (`node <args>`, pinned where pinningOf() says) that prints a JSON line with its
 * "url" once listening; resolves with the process and that URL.
 */
export function startServer(args, env, { pin = false } = {}) {
  return new Promise((resolve, reject) => {
    const node = [process.execPath, ...UNIT_NODE_FLAGS, ...args];
    const pinned = pin ? pinningOf() : null;
    const [cmd, argv] = pinned ? ['taskset', ['-c', pinned.server, ...node]] : [node[0], node.slice(1)];
    const proc = spawn(cmd, argv, { env: { ...UNIT_ENV, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    daemons.add(proc);
    let buf = '';
    proc.stdout.on('data', (c) => {
      buf += c;
      const m = /"url":"([^"]+)"/.exec(buf);
      if (m) {
        // From here on the log lines are only drained, as a log collector would.
        proc.stdout.removeAllListeners('data');
        proc.stdout.resume();
        resolve({ proc, url: m[1] });
      }
    });
    proc.on('exit', (code) => reject(new Error(`${args[0]} exited ${code}`)));
  });
}

/** `archivectl serve` (this checkout's, or `bin`) on 127.0.0.1 and a free port; resolves with the process and its URL. */
export function startDaemon(config, env, bin = OWN_BIN, options = {}) {
  return startServer([bin, '--config', config, 'serve', '--port', '0', '--host', '127.0.0.1'], env, options);
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

/**
 * One GET on a kept-alive connection (one at a time), with a bearer token when given; resolves
 * with the status, the time to the last byte in ms, and the body as text.
 */
export function get(url, token) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    http
      .get(url, { headers, agent: keepAlive }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, ms: ms(t0), body: Buffer.concat(chunks).toString() }));
      })
      .on('error', reject);
  });
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const percentile = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
export const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
