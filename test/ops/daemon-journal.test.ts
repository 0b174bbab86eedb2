// Issue 10, finding 5: under systemd every log line reaches the journal with its own priority.
// systemd names the journal stream in JOURNAL_STREAM (device:inode of stdout); the spawned
// daemon's stdout here is a file whose device and inode the test gives in that variable, which
// is exactly what the daemon can see of a real journal stream.
import { spawn } from 'node:child_process';
import { openSync, closeSync, fstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv, useSandbox } from '../helpers/cli.js';

const box = useSandbox();

async function runDaemonWith(env: (stdoutFd: number) => Record<string, string>): Promise<string[]> {
  const file = path.join(box.dir, `stdout-${Date.now()}.log`);
  const fd = openSync(file, 'w+');
  const child = spawn(
    process.execPath,
    [BIN, '--config', box.configFile, 'serve', '--host', '127.0.0.1', '--port', '0'],
    {
      cwd: box.dir,
      env: childEnv(box.env, env(fd)),
      stdio: ['ignore', fd, 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 20_000;
    while (!readFileSync(file, 'utf8').includes('"msg":"listening"')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(readFileSync(file, 'utf8'));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    closeSync(fd);
  }
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

describe('journald priorities', () => {
  it('prefixes each line with its syslog priority when stdout is the journal stream', async () => {
    const logged = await runDaemonWith((fd) => {
      const st = fstatSync(fd);
      return { JOURNAL_STREAM: `${st.dev}:${st.ino}` };
    });
    expect(logged.length).toBeGreaterThan(2);
    for (const line of logged) {
      const m = /^<(\d)>(\{.*\})$/.exec(line);
      expect(m, line).not.toBeNull();
      const entry = JSON.parse((m as RegExpExecArray)[2] as string) as { level: string };
      expect({ info: '6', warn: '4', error: '3', fatal: '2' }[entry.level], line).toBe((m as RegExpExecArray)[1]);
    }
  });

  it('writes plain JSON lines with word levels when JOURNAL_STREAM names another stream', async () => {
    const logged = await runDaemonWith(() => ({ JOURNAL_STREAM: '1:1' }));
    for (const line of logged) {
      const entry = JSON.parse(line) as { level: unknown };
      expect(['info', 'warn'], line).toContain(entry.level);
    }
  });
});
