// Issue 10, finding 10: SIGHUP, whose default action ends a process, is answered with a log
// line and ignored: the daemon keeps serving, and SIGTERM still stops it cleanly. A real
// process, since only a process receives signals.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/cli.js';
import { logEntries, spawnDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/until.js';

const box = useSandbox();

describe('SIGHUP', () => {
  it('is logged and ignored; the daemon keeps serving and stops on SIGTERM with status 0', async () => {
    const daemon = await spawnDaemon(box);
    try {
      daemon.proc.kill('SIGHUP');
      const hangup = () => logEntries(daemon).find((e) => e.signal === 'SIGHUP');
      await until(() => hangup() !== undefined, 'the SIGHUP log line');
      expect(hangup()?.msg).toMatch(/ignored/);
      expect(daemon.running()).toBe(true);
      expect((await daemon.fetch('/healthz')).status).toBe(200);
    } finally {
      const exit = await daemon.stop('SIGTERM');
      expect(exit).toEqual({ code: 0, signal: null });
    }
  });
});
