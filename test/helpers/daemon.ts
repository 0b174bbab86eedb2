// Starts the built daemon (`archivectl serve --port 0`) as a child process on a sandbox and
// talks to it over real HTTP on 127.0.0.1. The port is read from the daemon's own "listening"
// log line; every stdout line is kept so tests can inspect the logs.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { BIN, childEnv, createSandbox, type Sandbox } from './cli.js';

export interface RunningDaemon {
  readonly url: string;
  /** Every stdout line so far (JSON log lines). */
  readonly logs: string[];
  /** Everything written on stderr so far. */
  stderr(): string;
  readonly proc: ChildProcessWithoutNullStreams;
  /** Sends a signal (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** `fetch` relative to the daemon's URL. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

export async function startDaemon(
  box: Sandbox,
  opts: { args?: string[]; env?: Record<string, string | undefined> } = {},
): Promise<RunningDaemon> {
  const proc = spawn(
    process.execPath,
    [BIN, '--config', box.configFile, 'serve', '--host', '127.0.0.1', '--port', '0', ...(opts.args ?? [])],
    { cwd: box.dir, env: childEnv(box.env, opts.env), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const logs: string[] = [];
  let errText = '';
  let partial = '';
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the daemon did not start:\n${errText}\n${logs.join('\n')}`)), 30_000);
    proc.stdout.on('data', (chunk: Buffer) => {
      partial += chunk.toString('utf8');
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        logs.push(line);
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'listening' && entry.url) {
            clearTimeout(timer);
            resolve(entry.url);
          }
        } catch {
          // not JSON: kept in logs for the assertions
        }
      }
    });
    proc.stderr.on('data', (chunk: Buffer) => (errText += chunk.toString('utf8')));
    exited = new Promise((done) => proc.on('exit', (code, signal) => done({ code, signal })));
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the daemon exited (${code}) before listening:\n${errText}\n${logs.join('\n')}`));
    });
  });
  return {
    url,
    logs,
    stderr: () => errText,
    proc,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
    fetch: (path, init) => fetch(new URL(path, url), init),
  };
}

/** A sandbox and a daemon on it for the current test file: started in beforeAll, stopped in afterAll. */
export function useDaemon(opts: { args?: string[]; env?: Record<string, string> } = {}): {
  cli: () => Sandbox;
  daemon: () => RunningDaemon;
} {
  let box: Sandbox | undefined;
  let daemon: RunningDaemon | undefined;
  beforeAll(async () => {
    box = await createSandbox();
    daemon = await startDaemon(box, opts);
  });
  afterAll(async () => {
    await daemon?.stop();
    await box?.cleanup();
  });
  return {
    cli: () => {
      if (!box) throw new Error('only inside tests');
      return box;
    },
    daemon: () => {
      if (!daemon) throw new Error('only inside tests');
      return daemon;
    },
  };
}

/** The parsed JSON log lines of a daemon. */
export function logEntries(d: RunningDaemon): Record<string, unknown>[] {
  return d.logs.flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
