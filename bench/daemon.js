// What the benchmark scenarios share: starting the built daemon as a process (never left behind:
// every daemon started here is killed when the benchmark exits) and the figures' arithmetic.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const OWN_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'archivectl');

const daemons = new Set();
process.on('exit', () => {
  for (const p of daemons) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

/**
 * The memory settings of the README's systemd unit, under which the daemon is measured as it is
 * deployed (a setting already in the environment is kept): two malloc arenas instead of eight per
 * core, and a young generation of 4 MB semi-spaces instead of V8's 16 MB.
 */
export const UNIT_ENV = { MALLOC_ARENA_MAX: '2', NODE_OPTIONS: '--max-semi-space-size=4' };

/** `archivectl serve` (this checkout's, or `bin`) on 127.0.0.1 and a free port; resolves with the process and its URL. */
export function startDaemon(config, env, bin = OWN_BIN) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [bin, '--config', config, 'serve', '--port', '0', '--host', '127.0.0.1'], {
      env: { ...UNIT_ENV, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
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
    proc.on('exit', (code) => reject(new Error(`daemon exited ${code}`)));
  });
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const percentile = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
export const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
