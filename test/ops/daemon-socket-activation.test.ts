// Socket activation (systemd/archivectl.socket): the daemon listens on the socket systemd passes
// as fd 3 (LISTEN_FDS, LISTEN_PID), so connections made while it starts or restarts wait in the
// socket's queue instead of being refused. systemd's part is played by a python3 process that
// binds and listens, never accepts, and starts the built daemon with the socket as fd 3 and
// LISTEN_PID set to the daemon's own pid (a shell that execs it), as systemd does; it keeps the
// socket across the daemon's restarts, as archivectl.socket does.
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, childEnv, useSandbox } from '../helpers/cli.js';
import { makeCertificate, OPENSSL } from '../helpers/certificate.js';
import { patchConfig } from '../helpers/config.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';
import { until } from '../helpers/until.js';
import { takeInheritedSockets } from '../../src/http/inherited-sockets.js';

const python = systemTool('python3', 'python3-minimal');

// Binds N sockets on 127.0.0.1:0 (listen backlog 128) as fds 3, 4, … and reports their ports on
// stderr; on stdin, `start` runs the daemon (argv after N) with them, `stop` sends it SIGTERM and
// reports its exit status; at the end of stdin, a daemon still running is stopped the same way.
const HOLDER = `
import json, os, signal, socket, subprocess, sys
n = int(sys.argv[1])
held = []
for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    held.append(s)
fds = tuple(range(3, 3 + n))
for fd, s in zip(fds, held):
    os.dup2(s.fileno(), fd)
    os.set_inheritable(fd, True)
def say(**m):
    print(json.dumps(m), file=sys.stderr, flush=True)
say(ports=[s.getsockname()[1] for s in held])
child = None
for line in sys.stdin:
    if line.strip() == "start":
        run = 'export LISTEN_PID=$$ LISTEN_FDS=%d LISTEN_FDNAMES=http; exec "$@"' % n
        child = subprocess.Popen(["/bin/sh", "-c", run, "sh"] + sys.argv[2:], pass_fds=fds)
        say(started=child.pid)
    elif line.strip() == "stop":
        child.send_signal(signal.SIGTERM)
        say(exited=child.wait())
if child is not None and child.poll() is None:
    child.send_signal(signal.SIGTERM)
    child.wait()
`;

const box = useSandbox();

interface Holder {
  /** The first socket's port. */
  port: number;
  ports: number[];
  /** The daemon's stdout lines, all runs together. */
  logs: string[];
  /** Starts the daemon; resolves once it logs "listening" (its `url`). */
  start(): Promise<string>;
  /** SIGTERM to the daemon; resolves with its exit status. */
  stop(): Promise<number>;
  /** Ends the holder, and the daemon with it when one runs (none outlives its test). */
  close(): Promise<void>;
}

async function holdSocket(count = 1): Promise<Holder> {
  const proc: ChildProcess = spawn(
    pathOf(python, 'python3'),
    ['-c', HOLDER, String(count), process.execPath, BIN, '--config', box.configFile, 'serve'],
    { cwd: box.dir, env: childEnv(box.env), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const logs: string[] = [];
  const events: Record<string, number & number[]>[] = [];
  const lines = (into: (line: string) => void) => {
    let partial = '';
    return (chunk: Buffer) => {
      partial += chunk.toString('utf8');
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      parts.forEach(into);
    };
  };
  proc.stdout?.on(
    'data',
    lines((line) => logs.push(line)),
  );
  let errText = '';
  proc.stderr?.on(
    'data',
    lines((line) => {
      if (line.startsWith('{')) events.push(JSON.parse(line) as Record<string, number & number[]>);
      else errText += `${line}\n`;
    }),
  );
  const eventCount = (key: string) => events.filter((e) => key in e).length;
  const lastOf = (key: string) => events.filter((e) => key in e).at(-1)?.[key];
  await until(() => eventCount('ports') === 1, `the sockets to be bound${errText}`);
  const ports = lastOf('ports') as number[];
  const listening = () => logs.filter((l) => l.includes('"msg":"listening"'));
  return {
    port: ports[0] as number,
    ports,
    logs,
    async start() {
      const before = listening().length;
      proc.stdin?.write('start\n');
      // On a timeout the assertion below prints the daemon's output.
      await until(() => listening().length > before, 'the daemon to listen').catch(() => undefined);
      const line = listening().at(-1) ?? '';
      expect(listening().length, `${errText}${logs.join('\n')}`).toBe(before + 1);
      return (JSON.parse(line) as { url: string }).url;
    },
    async stop() {
      const before = eventCount('exited');
      proc.stdin?.write('stop\n');
      await until(() => eventCount('exited') > before, 'the daemon to exit');
      expect(eventCount('exited')).toBe(before + 1);
      return lastOf('exited') as number;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.stdin?.end();
      }),
  };
}

/** A GET on a new connection; resolves with the status, or the error's code (ECONNREFUSED, …). */
function rawGet(port: number, target = '/healthz'): { connected: Promise<void>; answer: Promise<number | string> } {
  const socket = net.connect({ host: '127.0.0.1', port });
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const answer = new Promise<number | string>((resolve) => {
    let text = '';
    socket.once('connect', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0) || 'closed without an answer'));
  });
  return { connected, answer };
}

let holder: Holder | undefined;
afterEach(async () => {
  await holder?.close();
  holder = undefined;
});

describe.skipIf(python.skip !== null)('socket activation (LISTEN_FDS)', () => {
  it('answers the connections made before it was started, on the socket passed, not the configured port', async () => {
    await patchConfig(box, { listen: { host: '127.0.0.1', port: 1 } });
    holder = await holdSocket();
    const early = Array.from({ length: 5 }, () => rawGet((holder as Holder).port));
    // Every connection is established (in the socket's queue) before the daemon exists.
    await Promise.all(early.map((c) => c.connected));
    const url = await holder.start();
    expect(url).toBe(`http://127.0.0.1:${holder.port}`);
    expect(await Promise.all(early.map((c) => c.answer))).toEqual([200, 200, 200, 200, 200]);
    expect(holder.logs.join('\n')).toContain('"systemd_sockets":1');
    expect(await holder.stop()).toBe(0);
  });

  it('refuses no connection while it restarts under steady traffic', async () => {
    await patchConfig(box, { listen: { host: '127.0.0.1', port: 1 } });
    holder = await holdSocket();
    await holder.start();
    const outcomes: (number | string)[] = [];
    let running = true;
    // Two clients, each a new connection per request, one after the other.
    const client = async () => {
      while (running) outcomes.push(await rawGet((holder as Holder).port).answer);
    };
    const clients = [client(), client()];
    const restarts = 3;
    let duringRestarts = 0;
    for (let i = 0; i < restarts; i++) {
      const before = outcomes.length;
      expect(await holder.stop()).toBe(0);
      await holder.start();
      duringRestarts += outcomes.length - before;
      // Some requests reach the new daemon before the next restart.
      const now = outcomes.length;
      await until(() => outcomes.length >= now + 20, 'requests to the restarted daemon');
    }
    running = false;
    await Promise.all(clients);
    const failed = outcomes.filter((o) => o !== 200);
    console.info(
      `restart under traffic: ${restarts} restarts, ${outcomes.length} requests (${duringRestarts} during the restarts), ` +
        `${failed.filter((o) => o === 'ECONNREFUSED').length} refused, ${failed.length} not 200`,
    );
    expect(duringRestarts).toBeGreaterThan(0);
    expect(failed).toEqual([]);
  });

  it('serves every socket passed (several ListenStream= lines), and stops accepting on each at SIGTERM', async () => {
    await patchConfig(box, { listen: { host: '127.0.0.1', port: 1 } });
    holder = await holdSocket(2);
    await holder.start();
    expect(holder.logs.join('\n')).toContain('"systemd_sockets":2');
    for (const port of holder.ports) expect(await rawGet(port).answer, `port ${port}`).toBe(200);
    expect(await holder.stop()).toBe(0);
    // Queued on both again (the daemon let go of them), answered by the next daemon.
    const early = holder.ports.map((port) => rawGet(port));
    await Promise.all(early.map((c) => c.connected));
    await holder.start();
    expect(await Promise.all(early.map((c) => c.answer))).toEqual([200, 200]);
    expect(await holder.stop()).toBe(0);
  });

  it.skipIf(OPENSSL.skip !== null)('serves TLS on the socket passed', async () => {
    const { cert, key } = makeCertificate(box.dir);
    await patchConfig(box, { listen: { host: '127.0.0.1', port: 1 }, tls: { cert, key } });
    holder = await holdSocket();
    const url = await holder.start();
    expect(url).toBe(`https://127.0.0.1:${holder.port}`);
    const status = await new Promise<number | undefined>((resolve, reject) =>
      https
        .get(`${url}/healthz`, { rejectUnauthorized: false, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode);
        })
        .on('error', reject),
    );
    expect(status).toBe(200);
    expect(await holder.stop()).toBe(0);
    await patchConfig(box, { tls: null });
  });
});

describe('the LISTEN_* variables (sd_listen_fds)', () => {
  const passed = () => ({ LISTEN_PID: '4242', LISTEN_FDS: '2', LISTEN_FDNAMES: 'http:http', KEEP: 'x' });

  it('give fds 3 on to the process they name, and are removed so that no child takes them', () => {
    const env: NodeJS.ProcessEnv = passed();
    expect(takeInheritedSockets(env, 4242)).toEqual([3, 4]);
    expect(env).toEqual({ KEEP: 'x' });
  });

  it('give nothing to another process (a child that inherited them), and are removed all the same', () => {
    for (const [env, pid] of [
      [passed(), 4243],
      [{ ...passed(), LISTEN_PID: '' }, 4242],
      [{ ...passed(), LISTEN_PID: '4242x' }, 4242],
      [{ ...passed(), LISTEN_FDS: 'two' }, 4242],
      [{ LISTEN_FDS: '1' }, 4242],
    ] as [NodeJS.ProcessEnv, number][]) {
      expect(takeInheritedSockets(env, pid), JSON.stringify(env)).toEqual([]);
      expect(Object.keys(env).filter((k) => k.startsWith('LISTEN_'))).toEqual([]);
    }
  });
});
