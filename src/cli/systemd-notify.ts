// systemd's readiness protocol (Type=notify), sent by systemd's own `systemd-notify` from a child process (no
// native add-on to build): hence the unit's NotifyAccess=all, and KillMode=mixed so a stop spares that child.
import { execFile } from 'node:child_process';

export interface Notifier {
  ready(status: string): void;
  /** Resolves once systemd-notify has sent STOPPING=1 (or failed to): wait before exiting. */
  stopping(): Promise<void>;
}

/** A notifier when NOTIFY_SOCKET is set, else a no-op; `warn` hears once of a message not sent. */
export function systemdNotifier(env: NodeJS.ProcessEnv, warn: (message: string) => void): Notifier {
  if (!env.NOTIFY_SOCKET) return { ready: () => undefined, stopping: () => Promise.resolve() };
  let warned = false;
  const send = (...messages: string[]) =>
    new Promise<void>((resolve) =>
      execFile('systemd-notify', messages, { env, timeout: 5000 }, (err) => {
        if (err && !warned) {
          warned = true;
          const why = (err as NodeJS.ErrnoException).code ?? (err.signal ? `killed by ${err.signal}` : err.message);
          warn(`cannot notify systemd (${why})`);
        }
        resolve();
      }),
    );
  // WATCHDOG_PID, when set, names the process the watchdog is for.
  const usec = Number(env.WATCHDOG_USEC);
  const forUs = !env.WATCHDOG_PID || Number(env.WATCHDOG_PID) === process.pid;
  let watchdog: NodeJS.Timeout | undefined;
  return {
    ready(status) {
      void send('READY=1', `STATUS=${status}`);
      if (forUs && Number.isFinite(usec) && usec > 0) {
        watchdog = setInterval(() => void send('WATCHDOG=1'), Math.max(1, Math.floor(usec / 2000)));
        watchdog.unref();
      }
    },
    stopping() {
      clearInterval(watchdog);
      return send('STOPPING=1');
    },
  };
}
