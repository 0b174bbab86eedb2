// Issue 10: Type=notify. With NOTIFY_SOCKET set, the daemon tells systemd READY=1 once it
// listens, WATCHDOG=1 at half of WATCHDOG_USEC, and STOPPING=1 when it begins to shut down. The
// socket here is a unix datagram socket of the test's own (Node has none: a python3 receiver),
// and the daemon a real process, as under systemd.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, useSandbox } from '../helpers/cli.js';
import { spawnDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/until.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';

const python = systemTool('python3', 'python3-minimal');
const notify = systemTool('systemd-notify', 'systemd');
const skip = python.skip ?? notify.skip;

// Prints each datagram received as one JSON string per line.
const RECEIVER = `
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print(json.dumps("bound"), flush=True)
while True:
    print(json.dumps(s.recv(65536).decode()), flush=True)
`;

const box = useSandbox();

describe.skipIf(skip !== null)('systemd notification (Type=notify)', () => {
  let receiver: ChildProcess;
  const messages: string[] = [];
  let socketPath = '';

  beforeAll(async () => {
    socketPath = path.join(box.dir, 'notify.sock');
    receiver = spawn(pathOf(python, 'python3'), ['-c', RECEIVER, socketPath], { stdio: ['ignore', 'pipe', 'inherit'] });
    let partial = '';
    receiver.stdout?.on('data', (chunk: Buffer) => {
      partial += chunk.toString('utf8');
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) messages.push(JSON.parse(line) as string);
    });
    await until(() => messages.includes('bound'), 'the receiver to bind');
    pathOf(notify, 'systemd-notify');
  });
  afterAll(() => {
    receiver?.kill();
  });

  it('sends READY=1 once listening, WATCHDOG=1 while running and STOPPING=1 on SIGTERM', async () => {
    const daemon = await spawnDaemon(box, { env: { NOTIFY_SOCKET: socketPath, WATCHDOG_USEC: '200000' } });
    const has = (field: string) => messages.some((m) => m.split('\n').includes(field));
    await until(() => has('READY=1'), 'READY=1');
    const ready = messages.find((m) => m.split('\n').includes('READY=1')) ?? '';
    expect(ready).toContain(`STATUS=listening on ${daemon.url}`);
    await until(() => has('WATCHDOG=1'), 'WATCHDOG=1');
    expect(has('STOPPING=1')).toBe(false);
    expect(await daemon.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    await until(() => has('STOPPING=1'), 'STOPPING=1');
  });

  // KillMode=mixed (the unit): SIGTERM reaches the daemon alone, and whatever of its process
  // group is left when it exits is killed. STOPPING=1 must be sent by then, not after.
  it('has sent STOPPING=1 before it exits (what is left of its process group is killed then)', async () => {
    const proc = spawn(
      process.execPath,
      [BIN, '--config', box.configFile, 'serve', '--host', '127.0.0.1', '--port', '0'],
      {
        cwd: box.dir,
        env: childEnv(box.env, { NOTIFY_SOCKET: socketPath }),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    let out = '';
    proc.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) =>
      proc.on('exit', (code) => {
        try {
          process.kill(-(proc.pid as number), 'SIGKILL');
        } catch {
          // nothing left
        }
        resolve(code);
      }),
    );
    const count = (field: string) => messages.filter((m) => m.split('\n').includes(field)).length;
    const readyBefore = count('READY=1');
    const stoppingBefore = count('STOPPING=1');
    await until(() => count('READY=1') > readyBefore, 'READY=1');
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    await until(() => count('STOPPING=1') > stoppingBefore, 'STOPPING=1');
    expect(out).not.toContain('cannot notify systemd');
  });

  // systemd-notify follows each message with BARRIER=1 and exits once it is read, so an earlier
  // daemon's last datagram may reach the test after that daemon exited. A message of the test's
  // own, and its barrier, mark where everything sent before has been read.
  let marks = 0;
  async function readUpToHere(): Promise<{ mark: number; next: number }> {
    const text = `X_TEST_MARK=${++marks}`;
    await promisify(execFile)(pathOf(notify, 'systemd-notify'), [text], {
      env: { ...process.env, NOTIFY_SOCKET: socketPath },
    });
    const barrierAfter = (mark: number) => (mark < 0 ? -1 : messages.indexOf('BARRIER=1', mark + 1));
    await until(() => barrierAfter(messages.indexOf(text)) >= 0, text);
    const mark = messages.indexOf(text);
    return { mark, next: barrierAfter(mark) + 1 };
  }

  it('sends nothing without NOTIFY_SOCKET', async () => {
    const { next: from } = await readUpToHere();
    const daemon = await spawnDaemon(box);
    expect(await daemon.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const { mark: to } = await readUpToHere();
    expect(messages.slice(from, to)).toEqual([]);
  });
});
