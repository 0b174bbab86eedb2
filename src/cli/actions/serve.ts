import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { readConfig, refuseUntrustedDatabase, type Globals } from '../context.js';
import { usage } from '../../errors.js';
import { parseArg, PORT } from '../args.js';
import { io } from '../io.js';

/** V8's young generation: two semi-spaces of at most this size (V8's default: 16 MB each). */
const SEMI_SPACE_MB = 8;
/** The old generation may grow by this much over what a full collection leaves (V8's default: up to 100 %). */
const HEAP_GROWING_PERCENT = 50;

/**
 * The daemon sets its own heap limits, so `archivectl serve`, `npm start` and the unit run alike
 * (bench/RESULTS.md, "Memory of the daemon started as `archivectl serve`"): V8's defaults cost
 * 30-40 MB of RSS under load, 8 MB semi-spaces a few % of CPU (4 MB: 12 %). Node takes
 * `--max-semi-space-size` only on its command line, so V8's growth factor (read at each
 * collection) holds the young generation at 8 MB: 2 while below, 1 once there. Node's flags win.
 */
function limitDaemonHeap(): void {
  const nodeFlags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''];
  const given = (flag: string) => nodeFlags.some((f) => f.includes(flag));
  if (!given('--heap-growing-percent')) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  if (given('--max-semi-space-size') || given('--semi-space-growth-factor')) return;
  const cap = 2 * SEMI_SPACE_MB * 2 ** 20;
  let growing = true;
  const governor = new PerformanceObserver(() => {
    const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    const full = (newSpace?.space_size ?? 0) >= cap;
    if (full !== growing) return;
    growing = !full;
    v8.setFlagsFromString(`--semi-space-growth-factor=${full ? 1 : 2}`);
  });
  governor.observe({ entryTypes: ['gc'] });
}

export async function run(globals: Globals, opts: { host?: string; port?: string; migrate: boolean }): Promise<void> {
  const config = readConfig(globals());
  const port = opts.port === undefined ? undefined : parseArg(PORT, opts.port, usage);
  refuseUntrustedDatabase(config);
  const { startDaemon } = await import('../../http/server.js');
  const { stdout, clock, signals, env } = io();
  // Taken (and removed from the environment) before any child process could inherit them.
  const { takeInheritedSockets } = await import('../../http/inherited-sockets.js');
  const sockets = takeInheritedSockets(env, process.pid);
  // A daemon that owns its process sets the process's heap (one running inside tests does not).
  if (signals === process) limitDaemonHeap();
  // Listened to before the daemon says it listens, so no later signal meets a default action:
  // SIGTERM or SIGINT during the start stop the daemon once started; SIGHUP (by default the end
  // of the process) is logged and ignored: a daemon logging to stdout has nothing to reopen.
  let stopRequested: ((signal: string) => void) | string | null = null;
  let hangup: () => void = () => undefined;
  const onTerm = () => request('SIGTERM');
  const onInt = () => request('SIGINT');
  const onHangup = () => hangup();
  const request = (signal: string) => {
    if (typeof stopRequested === 'function') stopRequested(signal);
    else stopRequested ??= signal;
  };
  signals.once('SIGTERM', onTerm);
  signals.once('SIGINT', onInt);
  signals.on('SIGHUP', onHangup);
  let failure: Error | undefined;
  try {
    // The daemon logs JSON lines to this run's stdout (its own fast writer when that is the
    // process's), and reports a readable database file in its log, not here.
    const daemon = await startDaemon(config, {
      migrate: opts.migrate,
      host: opts.host,
      port,
      sockets,
      clock,
      ...(stdout === process.stdout ? {} : { logDestination: stdout }),
    });
    hangup = () => daemon.hangup();
    if (sockets.length > 0 && (opts.host !== undefined || port !== undefined))
      daemon.log.warn('--host and --port are not used: the daemon listens on the sockets systemd passed');
    const { systemdNotifier } = await import('../systemd-notify.js');
    const systemd = systemdNotifier(env, (message) => daemon.log.warn(message));
    systemd.ready(`listening on ${daemon.url}`);
    failure = await new Promise<Error | undefined>((resolve) => {
      const stop = (signal: string) => {
        daemon.log.info({ signal }, 'signal received');
        // Waited for before the process exits: under KillMode=mixed systemd kills what is left.
        const notified = systemd.stopping();
        daemon.close().then(
          () => notified.then(() => resolve(undefined)),
          (err: unknown) => notified.then(() => resolve(new Error(`during shutdown: ${(err as Error).message}`))),
        );
      };
      if (typeof stopRequested === 'string') stop(stopRequested);
      else stopRequested = stop;
    });
  } finally {
    signals.removeListener('SIGTERM', onTerm);
    signals.removeListener('SIGINT', onInt);
    signals.removeListener('SIGHUP', onHangup);
  }
  // All is closed and flushed; a handler still waiting on its client past the shutdown deadline
  // must not keep the daemon alive, so one that owns its process leaves now (status 1 after a
  // failed shutdown, whatever main's caller sets meanwhile). Inside tests it only returns.
  if (signals === process) setImmediate(() => process.exit(failure ? 1 : undefined));
  if (failure) throw failure;
}
