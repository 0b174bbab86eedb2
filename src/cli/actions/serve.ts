import { readConfig, refuseUntrustedDatabase, type Globals } from '../context.js';
import { usage } from '../../errors.js';
import { parseArg, PORT } from '../args.js';
import { io } from '../io.js';

export async function run(globals: Globals, opts: { host?: string; port?: string; migrate: boolean }): Promise<void> {
  const config = readConfig(globals());
  const port = opts.port === undefined ? undefined : parseArg(PORT, opts.port, usage);
  refuseUntrustedDatabase(config);
  const { startDaemon } = await import('../../http/server.js');
  const { stdout, clock, signals, env } = io();
  // Taken (and removed from the environment) before any child process could inherit them.
  const { takeInheritedSockets } = await import('../../http/inherited-sockets.js');
  const sockets = takeInheritedSockets(env, process.pid);
  // Listened to before the daemon says it listens: SIGTERM or SIGINT during the start stop it once started;
  // SIGHUP is logged and ignored (a daemon logging to stdout has nothing to reopen).
  let requestStop!: (signal: string) => void;
  const stopSignal = new Promise<string>((resolve) => (requestStop = resolve));
  let hangup: () => void = () => undefined;
  const onTerm = () => requestStop('SIGTERM');
  const onInt = () => requestStop('SIGINT');
  const onHangup = () => hangup();
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
    daemon.log.info({ signal: await stopSignal }, 'signal received');
    // Waited for before the process exits: under KillMode=mixed systemd kills what is left.
    const notified = systemd.stopping();
    failure = await daemon.close().then(
      () => undefined,
      (err: unknown) => new Error(`during shutdown: ${(err as Error).message}`),
    );
    await notified;
  } finally {
    signals.removeListener('SIGTERM', onTerm);
    signals.removeListener('SIGINT', onInt);
    signals.removeListener('SIGHUP', onHangup);
  }
  // A handler still waiting on its client past the shutdown deadline must not keep the process alive:
  // one that owns its process leaves now (status 1 after a failed shutdown). Inside tests it only returns.
  if (signals === process) setImmediate(() => process.exit(failure ? 1 : undefined));
  if (failure) throw failure;
}
