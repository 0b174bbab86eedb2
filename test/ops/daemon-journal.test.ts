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

  it('gives a failed start’s stderr line error priority when stderr is the journal stream', async () => {
    // Under systemd stdout and stderr are one stream, as here: one file.
    const file = path.join(box.dir, `failed-${Date.now()}.log`);
    const fd = openSync(file, 'w+');
    const st = fstatSync(fd);
    // 192.0.2.1 (TEST-NET-1) is no address of this machine.
    const child = spawn(process.execPath, [BIN, '--config', box.configFile, 'serve', '--host', '192.0.2.1'], {
      cwd: box.dir,
      env: childEnv(box.env, { JOURNAL_STREAM: `${st.dev}:${st.ino}` }),
      stdio: ['ignore', fd, fd],
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    closeSync(fd);
    expect(code).toBe(1);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines).toContain(
      '<3>error: cannot listen on 192.0.2.1:8080: no such address on this machine (EADDRNOTAVAIL)',
    );
    // Every line carries a priority: none lands at journald's default (info).
    for (const line of lines) expect(line, line).toMatch(/^<[0-7]>/);
  });

  it('writes the failed start’s stderr line without a priority elsewhere', async () => {
    const child = spawn(process.execPath, [BIN, '--config', box.configFile, 'serve', '--host', '192.0.2.1'], {
      cwd: box.dir,
      env: childEnv(box.env, { JOURNAL_STREAM: '1:1' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    expect(await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))).toBe(1);
    expect(err).toMatch(/^error: cannot listen on 192\.0\.2\.1:8080/);
  });
});
