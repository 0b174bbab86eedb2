// systemd's readiness protocol (Type=notify): READY=1 once the daemon listens, STOPPING=1 when
// it begins to shut down, WATCHDOG=1 at half the watchdog interval. Node cannot send the unix
// datagrams NOTIFY_SOCKET names, so systemd's own `systemd-notify` (there wherever systemd runs)
// sends them; from a child process, which needs NotifyAccess=all in the unit (README).
import { execFile } from 'node:child_process';

export interface Notifier {
  ready(status: string): void;
  stopping(): void;
}

/**
 * A notifier when NOTIFY_SOCKET is set (else a no-op). `warn` hears once of a message not sent;
 * the daemon keeps running (systemd then times the start out, which says more than a crash).
 */
export function systemdNotifier(env: NodeJS.ProcessEnv, warn: (message: string) => void): Notifier {
  if (!env.NOTIFY_SOCKET) return { ready: () => undefined, stopping: () => undefined };
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
