// systemd's readiness protocol (Type=notify): READY=1 once the daemon listens, STOPPING=1 when
// it begins to shut down, WATCHDOG=1 at half the watchdog interval. The messages are datagrams
// on the unix socket named by NOTIFY_SOCKET; Node cannot send unix datagrams, so they are sent
// by systemd's own `systemd-notify`, present wherever systemd runs. Its messages come from a
// child process: the unit needs NotifyAccess=all (see the README's unit).
import { execFile } from 'node:child_process';

export interface Notifier {
  ready(status: string): void;
  stopping(): void;
}

const NONE: Notifier = { ready: () => undefined, stopping: () => undefined };

/**
 * A notifier when NOTIFY_SOCKET is set (else one that does nothing). `warn` hears once about a
 * message that could not be sent; the daemon keeps running (systemd then times the start out,
 * which says more than a crash would).
 */
export function systemdNotifier(env: NodeJS.ProcessEnv, warn: (message: string) => void): Notifier {
  if (!env.NOTIFY_SOCKET) return NONE;
  let warned = false;
  const send = (...messages: string[]) =>
    execFile('systemd-notify', messages, { env, timeout: 5000 }, (err) => {
      if (err && !warned) {
        warned = true;
        warn(`cannot notify systemd (${(err as NodeJS.ErrnoException).code ?? err.message})`);
      }
    });
  // WATCHDOG_PID, when set, names the process the watchdog is for.
  const usec = Number(env.WATCHDOG_USEC);
  const forUs = !env.WATCHDOG_PID || Number(env.WATCHDOG_PID) === process.pid;
  let watchdog: NodeJS.Timeout | undefined;
  return {
    ready(status) {
      send('READY=1', `STATUS=${status}`);
      if (forUs && Number.isFinite(usec) && usec > 0) {
        watchdog = setInterval(() => send('WATCHDOG=1'), Math.max(1, Math.floor(usec / 2000)));
        watchdog.unref();
      }
    },
    stopping() {
      clearInterval(watchdog);
      send('STOPPING=1');
    },
  };
}
