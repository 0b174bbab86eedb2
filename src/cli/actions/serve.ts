// What archivectl serve does (its options and help are in ../commands/serve.ts).
// Loaded only when it runs.
import { readConfig, refuseUntrustedDatabase, type GlobalOptions } from '../context.js';
import { usage } from '../../errors.js';
import { parseArg, PORT } from '../args.js';
import { io } from '../io.js';

type Globals = () => GlobalOptions;

export async function run(globals: Globals, opts: { host?: string; port?: string; migrate: boolean }): Promise<void> {
  const config = readConfig(globals());
  const port = opts.port === undefined ? undefined : parseArg(PORT, opts.port, usage);
  refuseUntrustedDatabase(config);
  const { startDaemon } = await import('../../http/server.js');
  const { stdout, clock, signals, env } = io();
  // Signals are listened to before the daemon announces that it listens, so that none
  // sent after that line meets a default action: SIGTERM or SIGINT during the start stops
  // the daemon as soon as it has started; SIGHUP, whose default is to end the process, is
  // logged and ignored (a daemon logging to stdout has nothing to reopen).
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
      clock,
      ...(stdout === process.stdout ? {} : { logDestination: stdout }),
    });
    hangup = () => daemon.hangup();
    const { systemdNotifier } = await import('../systemd-notify.js');
    const systemd = systemdNotifier(env, (message) => daemon.log.warn(message));
    systemd.ready(`listening on ${daemon.url}`);
    failure = await new Promise<Error | undefined>((resolve) => {
      const stop = (signal: string) => {
        daemon.log.info({ signal }, 'signal received');
        systemd.stopping();
        daemon.close().then(
          () => resolve(undefined),
          (err: unknown) => resolve(new Error(`during shutdown: ${(err as Error).message}`)),
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
  // Everything is closed and flushed. A handler still waiting on its client after the
  // shutdown deadline must not keep a stopped daemon alive: a daemon that owns its process
  // leaves now (with status 1 after a failed shutdown, whatever the caller of main sets
  // meanwhile). One running inside another program (tests) only returns its status.
  if (signals === process) setImmediate(() => process.exit(failure ? 1 : undefined));
  if (failure) throw failure;
}
