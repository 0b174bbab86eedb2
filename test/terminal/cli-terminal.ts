// Runs the CLI's main in this process as if in a terminal: stdin and stdout claim to be TTYs
// (stdout `columns` wide), and what the test types is fed to stdin after the CLI has asked.
// Also seeds many tokens straight into a sandbox's database, for the table and speed tests.
import type { EventEmitter } from 'node:events';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { BIN, childEnv, collector, type CliResult, type Sandbox } from '../helpers/cli.js';

export interface TerminalRun {
  /** Resolves with the run's outcome. */
  done: Promise<CliResult>;
  /** Types text at the terminal (a key press sequence: "y\r", "\x03" for Ctrl-C). */
  type(text: string): void;
  /** What was written to stdout and stderr so far. */
  screen(): string;
}

export function runInTerminal(
  box: Sandbox,
  args: string[],
  opts: {
    columns?: number;
    env?: Record<string, string>;
    now?: string;
    signals?: EventEmitter;
    /** false: stdout is captured (`X=$(archivectl …)`), stdin and stderr still the terminal. */
    stdoutIsTerminal?: boolean;
  } = {},
): TerminalRun {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  const out = collector();
  const err = collector();
  const stdout =
    opts.stdoutIsTerminal === false
      ? out.stream
      : Object.assign(out.stream, { isTTY: true, columns: opts.columns ?? 80 });
  const stderr = Object.assign(err.stream, { isTTY: true, columns: opts.columns ?? 80 });
  const at = opts.now === undefined ? undefined : Date.parse(opts.now);
  const done = (async () => {
    const { main } = await import('../../src/cli/main.js');
    const code = await main([process.execPath, BIN, '--config', box.configFile, ...args], {
      stdout,
      stderr,
      stdin,
      env: childEnv(box.env, opts.env),
      cwd: box.dir,
      ...(opts.signals ? { signals: opts.signals } : {}),
      ...(at === undefined ? {} : { clock: { now: () => new Date(at) } }),
    });
    await new Promise((resolve) => setImmediate(resolve));
    return { code, stdout: out.text(), stderr: err.text() };
  })();
  // What a person reads: the prompts' colours and cursor movements left out.
  return { done, type: (text) => stdin.write(text), screen: () => stripVTControlCharacters(out.text() + err.text()) };
}

/** Waits until the screen shows `pattern` (a prompt), or fails after `ms`. */
export async function waitFor(run: TerminalRun, pattern: RegExp, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(run.screen())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; screen:\n${run.screen()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * `count` active tokens for `username` written straight into the database (no KDF: their
 * hashes are placeholders, as these tokens are only listed), in batches.
 */
export async function seedTokens(box: Sandbox, username: string, count: number, prefix = 'seed'): Promise<void> {
  const { loadConfig } = await import('../../src/config.js');
  const { openDatabase } = await import('../../src/db/connect.js');
  const { randomBase62 } = await import('../../src/domain/tokens/format.js');
  const config = loadConfig(box.configFile, childEnv(box.env), path.dirname(box.configFile));
  const db = await openDatabase(config.database);
  try {
    const account = await db('accounts').where('username', username).first<{ id: number }>('id');
    const now = new Date().toISOString();
    const rows = Array.from({ length: count }, (_, i) => ({
      selector: randomBase62(8),
      account_id: account?.id,
      name: `${prefix} token ${i} with a rather long descriptive name for a nightly job`,
      kind: 'regular',
      secret_hash: 'placeholder',
      expires: null,
      expires_at: null,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
    }));
    await db.batchInsert('tokens', rows, 500);
  } finally {
    await db.destroy();
  }
}
