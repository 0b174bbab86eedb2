// Starts the daemon (`archivectl serve --port 0`) on a sandbox and talks to it over real HTTP on
// 127.0.0.1. The port is read from the daemon's own "listening" log line; every stdout line is
// kept so tests can inspect the logs.
//
// By default the daemon is main(['serve', …], io) in this process, stopped through an emitter of
// its io (never the process's signals). `spawn: true` runs the built binary as a child process
// instead, for what only a process shows: real signals, exit status, several daemons as
// processes, a crash.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { BIN, childEnv, collector, createSandbox, type Sandbox } from './cli.js';

export interface DaemonExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningDaemon {
  readonly url: string;
  /** Every stdout line so far (JSON log lines). */
  readonly logs: string[];
  /** Everything written on stderr so far. */
  stderr(): string;
  /** Whether it has not exited (or, in this process, main has not returned). */
  running(): boolean;
  /**
   * Sends a signal (SIGTERM by default) and waits for the exit. In this process only SIGTERM and
   * SIGINT exist, and the exit status is main's return value.
   */
  stop(signal?: NodeJS.Signals): Promise<DaemonExit>;
  /** `fetch` relative to the daemon's URL. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * The system's time with a `sleep` that returns at once, keeping what it was asked in `waits`:
 * for a daemon in this process whose deliberate waits (a report's answer floor) a test checks
 * instead of sitting through.
 */
export function noSleepClock(): { now(): Date; sleep(ms: number): Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { now: () => new Date(), sleep: (ms) => Promise.resolve(void waits.push(ms)), waits };
}

/** A daemon running as a child process. */
export interface SpawnedDaemon extends RunningDaemon {
  readonly proc: ChildProcessWithoutNullStreams;
}

export interface DaemonOptions {
  /** Arguments after `serve --host 127.0.0.1 --port 0`. */
  args?: string[];
  env?: Record<string, string | undefined>;
  /** The daemon's clock (in this process only), e.g. one whose `sleep` returns at once. */
  clock?: { now(): Date; sleep?(ms: number): Promise<void> };
}

/**
 * Reads the daemon's stdout: keeps every line in `logs`, and `url` resolves with the URL of the
 * "listening" line, or rejects when `exited` settles first or after 30 s.
 */
function logReader(
  logs: string[],
  errText: () => string,
): { onChunk: (chunk: Buffer | string) => void; url: Promise<string>; watch: (exited: Promise<DaemonExit>) => void } {
  let partial = '';
  let found: (url: string) => void = () => undefined;
  let failed: (err: Error) => void = () => undefined;
  const url = new Promise<string>((resolve, reject) => {
    found = resolve;
    failed = reject;
  });
  const timer = setTimeout(
    () => failed(new Error(`the daemon did not start:\n${errText()}\n${logs.join('\n')}`)),
    30_000,
  );
  void url.then(
    () => clearTimeout(timer),
    () => clearTimeout(timer),
  );
  const onChunk = (chunk: Buffer | string) => {
    partial += chunk.toString();
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      logs.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'listening' && entry.url) found(entry.url);
      } catch {
        // not JSON: kept in logs for the assertions
      }
    }
  };
  const watch = (exited: Promise<DaemonExit>) =>
    void exited.then(({ code }) =>
      failed(new Error(`the daemon exited (${code}) before listening:\n${errText()}\n${logs.join('\n')}`)),
    );
  return { onChunk, url, watch };
}

const serveArgs = (box: Sandbox, opts: DaemonOptions) => [
  '--config',
  box.configFile,
  'serve',
  '--host',
  '127.0.0.1',
  '--port',
  '0',
  ...(opts.args ?? []),
];

/** The daemon as main(['serve', …], io) in this process. */
export async function startDaemon(box: Sandbox, opts: DaemonOptions = {}): Promise<RunningDaemon> {
  const { main } = await import('../../src/cli/main.js');
  const logs: string[] = [];
  const err = collector();
  const reader = logReader(logs, err.text);
  const signals = new EventEmitter();
  let done = false;
  const stdout = new Writable({
    write(chunk: Buffer | string, _encoding, next) {
      reader.onChunk(chunk);
      next();
    },
  });
  const exited = main([process.execPath, BIN, ...serveArgs(box, opts)], {
    stdout,
    stderr: err.stream,
    stdin: Readable.from([]),
    env: childEnv(box.env, opts.env),
    cwd: box.dir,
    signals,
    ...(opts.clock ? { clock: opts.clock } : {}),
  }).then((code): DaemonExit => {
    done = true;
    return { code, signal: null };
  });
  reader.watch(exited);
  const url = await reader.url;
  return {
    url,
    logs,
    stderr: err.text,
    running: () => !done,
    async stop(signal = 'SIGTERM') {
      if (signal !== 'SIGTERM' && signal !== 'SIGINT') throw new Error(`a daemon in this process cannot get ${signal}`);
      if (!done) signals.emit(signal);
      return exited;
    },
    fetch: (path, init) => fetch(new URL(path, url), init),
  };
}

/** The built daemon as a child process (`node bin/archivectl serve …`). */
export async function spawnDaemon(box: Sandbox, opts: DaemonOptions = {}): Promise<SpawnedDaemon> {
  if (opts.clock) throw new Error('a spawned daemon cannot be given a clock');
  const proc = spawn(process.execPath, [BIN, ...serveArgs(box, opts)], {
    cwd: box.dir,
    env: childEnv(box.env, opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  let errText = '';
  const reader = logReader(logs, () => errText);
  proc.stdout.on('data', reader.onChunk);
  proc.stderr.on('data', (chunk: Buffer) => (errText += chunk.toString('utf8')));
  const exited = new Promise<DaemonExit>((done) => proc.on('exit', (code, signal) => done({ code, signal })));
  reader.watch(exited);
  const url = await reader.url;
  const running = () => proc.exitCode === null && proc.signalCode === null;
  return {
    url,
    logs,
    stderr: () => errText,
    proc,
    running,
    async stop(signal = 'SIGTERM') {
      if (running()) proc.kill(signal);
      return exited;
    },
    fetch: (path, init) => fetch(new URL(path, url), init),
  };
}

/**
 * A sandbox and a daemon on it for the current test file: started in beforeAll, stopped in
 * afterAll. The daemon runs in this process unless `spawn` is set.
 */
export function useDaemon(opts: DaemonOptions & { spawn?: boolean } = {}): {
  cli: () => Sandbox;
  daemon: () => RunningDaemon;
} {
  let box: Sandbox | undefined;
  let daemon: RunningDaemon | undefined;
  beforeAll(async () => {
    box = await createSandbox();
    daemon = await (opts.spawn ? spawnDaemon : startDaemon)(box, opts);
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
