// Runs the CLI against a throw-away installation: a temporary directory holding a config.json
// and, on SQLite, the database.
//
// Usage in a test file:
//   const cli = useSandbox();            // registers beforeAll/afterAll
//   const r = await cli.run(['account', 'list']);          // { code, stdout, stderr }
//   const accounts = await cli.json(['account', 'list']);  // runs with --json, asserts exit 0
//   await cli.run(['token', 'list', '--all'], { now: '2026-11-21T00:00:00Z' }); // pinned clock
//   await cli.run(['account', 'list'], { spawn: true });   // the real binary, as a child process
//
// A run calls the CLI's main(argv, io) from src/ in this process (vitest compiles the source, so
// a test never meets a stale build), with its own streams, environment, working directory and,
// when `now` is given, a pinned clock: the product has no way to pin its clock from outside (no
// environment variable), so that nobody can back-date audit entries or mint long-lived
// "12-hour" tokens. `spawn: true` runs `node bin/archivectl …` instead, for what only a process
// shows: exit status and bin/, real pipes, signals, several processes at once, crash safety.
// test/global-setup.ts builds dist/bundle/ from src/ before any test, so the binary matches the source.
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import type { TokenView } from '../../src/domain/tokens/queries.js';
import { randomBase62 } from './token-values.js';
import { ROLES } from '../../src/domain/roles.js';
import { closeDatabase } from '../../src/db/connect.js';

/** The repository root, from this file's own location (test/helpers/cli.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = path.join(REPO_ROOT, 'bin', 'archivectl');

/** Inherited variables that change what the CLI does; cleared unless a test sets them. */
export const CLEARED_ENV = [
  'ARCHIVECTL_AS',
  'ARCHIVE_CONFIG',
  'DATABASE_URL',
  'ARCHIVECTL_COPY_TO',
  'ARCHIVECTL_DEBUG',
] as const;

/** A later change points the suite at PostgreSQL when this is set (see testDatabaseConfig). */
export const PG_URL = process.env.ARCHIVE_TEST_PG_URL;
export const IS_PG = Boolean(PG_URL);

// The JSON shapes of docs/cli.md, and what narrows a token after them.
export const TOKEN_KEYS = [
  'id',
  'account',
  'name',
  'kind',
  'status',
  'created',
  'last_used',
  'expires',
  'scopes',
  'allow_from',
  'rate_limit',
] as const;
export const CREATED_TOKEN_KEYS = [...TOKEN_KEYS, 'token'] as const;
export const TOKEN_VALUE_RE = /^arc_[0-9A-Za-z]{54}$/;
export const TOKEN_ID_RE = /^[0-9A-Za-z]{8}$/;
export const ISO_INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
export const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** The TOKEN object of docs/cli.md, as the CLI's --json prints it (its keys: TOKEN_KEYS). */
export type TokenJson = TokenView;
export interface CreatedTokenJson extends TokenJson {
  token: string;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Extra environment; a value of undefined removes the variable. */
  env?: Record<string, string | undefined>;
  /** Written to stdin (which is a pipe, never a terminal, in any case). */
  input?: string;
  /** An ISO instant that pins the CLI's clock (in-process runs only). */
  now?: string;
  /** A clock of the test's own, e.g. one that moves on at every read (in-process runs only). */
  clock?: { now(): Date };
  /** Runs the real binary as a child process instead of main() in this process. */
  spawn?: boolean;
  /** Working directory of the CLI; the sandbox directory by default. */
  cwd?: string;
  /**
   * The configuration file passed with `--config` before the command: the sandbox's by
   * default, another path, or false for none (to exercise ARCHIVE_CONFIG and ./config.json).
   */
  config?: string | false;
}

export interface Sandbox {
  /** The temporary directory (removed in afterAll). */
  readonly dir: string;
  readonly configFile: string;
  /** The SQLite file the configuration names (null on PostgreSQL). */
  readonly dbFile: string | null;
  /** Environment every process on this installation needs (DATABASE_URL on PostgreSQL). */
  readonly env: Record<string, string>;
  run(args: string[], opts?: RunOptions): Promise<CliResult>;
  /** Runs with `--json` appended, asserts exit status 0 and parses stdout. */
  json<T = unknown>(args: string[], opts?: RunOptions): Promise<T>;
  cleanup(): Promise<void>;
}

/** The environment for a run: inherited minus CLEARED_ENV, then the given layers in order. */
export function childEnv(...layers: (Record<string, string | undefined> | undefined)[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CLEARED_ENV) delete env[name];
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
  }
  return env;
}

/**
 * Runs `node bin/archivectl <args>` with the given environment and cwd; no --config is added.
 * stdin is a pipe (not a terminal), so the CLI never prompts.
 */
export function runRaw(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: opts.timeoutMs ?? 30_000,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: signal ? `${stderr}[killed by ${signal}]` : stderr,
      });
    });
    child.stdin.on('error', () => {}); // the CLI may exit before reading its input
    child.stdin.end(opts.input ?? '');
  });
}

/** One in-process run at a time (see runInProcess). */
let inProcessQueue: Promise<unknown> = Promise.resolve();

/** A stream that keeps what is written to it. */
export function collector(): { stream: Writable; text: () => string } {
  const parts: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(parts).toString('utf8') };
}

/**
 * Runs the CLI's `main` in this process with the given environment and working directory,
 * stdin a non-terminal stream holding `input`, stdout/stderr captured and, when `now` is given,
 * the clock pinned (or `clock` used). Runs are queued one at a time: a command waiting for SQLite's write lock
 * blocks a thread of libuv's pool, and several of them could starve the one holding the lock
 * (or a daemon in this process) of the thread its scrypt run needs. Child processes each have
 * their own pool.
 */
export function runInProcess(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; now?: string; clock?: { now(): Date }; input?: string },
): Promise<CliResult> {
  const at = opts.now === undefined ? undefined : Date.parse(opts.now);
  if (Number.isNaN(at)) throw new Error(`now: "${opts.now}" is not an ISO 8601 instant`);
  const run = async (): Promise<CliResult> => {
    const { main } = await import('../../src/cli/main.js');
    const out = collector();
    const err = collector();
    const code = await main([process.execPath, BIN, ...args], {
      stdout: out.stream,
      stderr: err.stream,
      stdin: Readable.from([Buffer.from(opts.input ?? '')]),
      env: opts.env,
      cwd: opts.cwd,
      ...(opts.clock ? { clock: opts.clock } : at === undefined ? {} : { clock: { now: () => new Date(at) } }),
    });
    await new Promise((resolve) => setImmediate(resolve)); // writes still on their way
    return { code, stdout: out.text(), stderr: err.text() };
  };
  const result = inProcessQueue.then(run, run);
  inProcessQueue = result.catch(() => undefined);
  return result;
}

/**
 * The one place that decides which database a sandbox uses: writes `config.json` into `dir`
 * and returns it with any environment the CLI needs. On SQLite the file is
 * `./archive.sqlite3`, relative to the config file. In a PostgreSQL run (ARCHIVE_TEST_PG_URL
 * names a database) each sandbox gets a database of its own on that server, named in
 * DATABASE_URL; `drop` removes it. Not a schema in a shared database: daemons hear of access
 * changes on a LISTEN channel of their database, and test files run side by side would hear
 * each other's generations. With `template`, that database is created as a copy of the template's.
 */
export async function testDatabaseConfig(
  dir: string,
  backend: 'default' | 'sqlite' = 'default',
  template?: SandboxTemplate,
): Promise<{ configFile: string; dbFile: string | null; env: Record<string, string>; drop: () => Promise<void> }> {
  const configFile = path.join(dir, 'config.json');
  await writeFile(
    configFile,
    `${JSON.stringify({ database: { filename: './archive.sqlite3' }, dataDir: './data' }, null, 2)}\n`,
    { mode: 0o600 }, // whatever the umask: the CLI refuses a config file others may write
  );
  if (!PG_URL || backend === 'sqlite')
    return { configFile, dbFile: path.join(dir, 'archive.sqlite3'), env: {}, drop: async () => undefined };
  const name = `sandbox_${path
    .basename(dir)
    .replace(/[^A-Za-z0-9]/g, '_')
    .toLowerCase()}`;
  await pgAdmin(`CREATE DATABASE "${name}"${template?.pgDatabase ? ` TEMPLATE "${template.pgDatabase}"` : ''}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    configFile,
    dbFile: null,
    env: { DATABASE_URL: url.toString() },
    drop: () => pgAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/** Runs one statement on the PostgreSQL test server: in ARCHIVE_TEST_PG_URL's database, or in `database`. */
export async function pgAdmin(sql: string, database?: string): Promise<void> {
  const { default: pg } = await import('pg');
  const url = new URL(PG_URL ?? '');
  if (database) url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The installation test/global-setup.ts migrates once with the built binary: its SQLite file and,
 * in a PostgreSQL run, its database. A sandbox with the schema applied is a copy of it (the same
 * state `archivectl migrate` leaves, without running every migration again per sandbox).
 */
export interface SandboxTemplate {
  sqliteFile: string;
  pgDatabase: string | null;
}

/** The template of this run, or undefined where no global setup made one (migrate instead). */
function sandboxTemplate(): SandboxTemplate | undefined {
  try {
    return inject('sandboxTemplate');
  } catch {
    return undefined;
  }
}

/** A fresh installation: a temporary directory, its configuration, and the schema applied. */
export async function createSandbox(
  options: { migrate?: boolean; backend?: 'default' | 'sqlite' } = {},
): Promise<Sandbox> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-test-'));
  const template = options.migrate === false ? undefined : sandboxTemplate();
  const { configFile, dbFile, env: dbEnv, drop } = await testDatabaseConfig(dir, options.backend, template);

  const run = (args: string[], opts: RunOptions = {}): Promise<CliResult> => {
    const config = opts.config === undefined ? configFile : opts.config;
    const argv = [...(config === false ? [] : ['--config', config]), ...args];
    const where = {
      cwd: opts.cwd ?? dir,
      env: childEnv(dbEnv, opts.env),
      ...(opts.input === undefined ? {} : { input: opts.input }),
    };
    if (!opts.spawn) {
      const { now, clock } = opts;
      return runInProcess(argv, { ...where, ...(now === undefined ? {} : { now }), ...(clock ? { clock } : {}) });
    }
    if (opts.now !== undefined || opts.clock) throw new Error('a spawned CLI cannot have its clock pinned (now)');
    return runRaw(argv, where);
  };

  const json = async <T = unknown>(args: string[], opts?: RunOptions): Promise<T> => {
    const r = await run([...args, '--json'], opts);
    expect(r.code, `archivectl ${args.join(' ')} --json failed:\n${r.stderr}`).toBe(0);
    try {
      return JSON.parse(r.stdout) as T;
    } catch {
      throw new Error(`archivectl ${args.join(' ')} --json printed no JSON:\n${r.stdout}`);
    }
  };

  const box: Sandbox = {
    dir,
    configFile,
    dbFile,
    env: dbEnv,
    run,
    json,
    cleanup: async () => {
      await drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  if (dbFile && template) {
    await copyFile(template.sqliteFile, dbFile); // its mode (0600) comes with it
  } else if (options.migrate !== false && !template?.pgDatabase) {
    // Else PostgreSQL made the database a copy of the template's (testDatabaseConfig).
    // The first command of a fresh installation notes the migrations it applied on stderr;
    // apply them here so that tests see only what their own command prints.
    const r = await run(['migrate']);
    if (r.code !== 0) {
      await box.cleanup();
      throw new Error(`archivectl migrate failed (${r.code}):\n${r.stderr}`);
    }
  }
  return box;
}

/**
 * A sandbox for the current test file (or describe block): created in beforeAll, removed in
 * afterAll. The returned object may be captured at collection time; use it inside tests.
 */
export function useSandbox(options: { migrate?: boolean } = {}): Sandbox {
  let box: Sandbox | undefined;
  beforeAll(async () => {
    box = await createSandbox(options);
  });
  afterAll(async () => {
    await box?.cleanup();
  });
  const get = (): Sandbox => {
    if (!box) throw new Error('the sandbox is only available inside tests (after beforeAll)');
    return box;
  };
  return {
    get dir() {
      return get().dir;
    },
    get configFile() {
      return get().configFile;
    },
    get dbFile() {
      return get().dbFile;
    },
    get env() {
      return get().env;
    },
    run: (args, opts) => get().run(args, opts),
    json: (args, opts) => get().json(args, opts),
    cleanup: () => get().cleanup(),
  };
}

/**
 * The accounts of the authority tests (who may act on whose tokens): two admins, two
 * superusers, an editor, a user and a blocked account.
 */
export const STAFF: Readonly<Record<string, string>> = {
  alice: 'admin',
  adam: 'admin',
  root: 'superuser',
  sam: 'superuser',
  eddie: 'editor',
  bob: 'user',
  bert: 'blocked',
};

/** Creates accounts (username → role), concurrently; fails the test if one is refused. */
/**
 * Creates the accounts, acting as the installation's first superuser (else admin): every command
 * that changes something names its acting account (README "Who acts"). On an empty installation
 * the highest-ranking account given is created first, as its first account (the operating-system
 * user acts), and acts for the others.
 */
export async function createAccounts(cli: Pick<Sandbox, 'run'>, accounts: Record<string, string>): Promise<void> {
  const rank = (role: string) => ROLES.indexOf(role as (typeof ROLES)[number]);
  const entries = Object.entries(accounts).sort((a, b) => rank(b[1]) - rank(a[1]));
  const create = async ([username, role]: [string, string], actor?: string) => ({
    username,
    r: await cli.run(['account', 'create', username, '--role', role, ...(actor ? ['--as', actor] : [])]),
  });
  let actor = await administrator(cli);
  const results = [];
  if (actor === undefined && entries[0]) {
    results.push(await create(entries[0]));
    actor = entries[0][0];
    entries.shift();
  }
  results.push(...(await Promise.all(entries.map(async (entry) => create(entry, actor)))));
  for (const { username, r } of results) expect(r.code, `account create ${username}: ${r.stderr}`).toBe(0);
}

/** A superuser of the installation (else an admin) to act as, or undefined while there is none. */
export async function administrator(cli: Pick<Sandbox, 'run'>): Promise<string | undefined> {
  const listed = await cli.run(['account', 'list', '--json']);
  if (listed.code !== 0) return undefined;
  const accounts = JSON.parse(listed.stdout) as { username: string; role: string }[];
  return (accounts.find((a) => a.role === 'superuser') ?? accounts.find((a) => a.role === 'admin'))?.username;
}

/**
 * `--as <administrator>` for a command that changes something; nothing on an installation without
 * accounts, where the operating-system user acts.
 */
export async function asAdministrator(cli: Pick<Sandbox, 'run'>): Promise<string[]> {
  const actor = await administrator(cli);
  return actor === undefined ? [] : ['--as', actor];
}

/** `token create` as `actor`, asserting success; returns the JSON (with the value in `token`). */
export async function createToken(
  cli: Pick<Sandbox, 'json'>,
  username: string,
  name: string,
  actor: string,
  extra: string[] = [],
  opts?: RunOptions,
): Promise<CreatedTokenJson> {
  return cli.json<CreatedTokenJson>(['token', 'create', username, '--name', name, '--as', actor, ...extra], opts);
}

/** Every token, including expired and revoked ones (`token list --all --json`). */
export async function allTokens(cli: Pick<Sandbox, 'json'>, opts?: RunOptions): Promise<TokenJson[]> {
  return cli.json<TokenJson[]>(['token', 'list', '--all'], opts);
}

/** The non-empty lines of a text. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}

/** A stack trace frame, as Node prints it (`    at fn (file:line:col)`). */
export const STACK_FRAME_RE = /^\s+at\s/m;

/** A random legacy token value (60 base62 characters). */
export const legacyValue = (): string => randomBase62(60);

/** A connection of the test's own to the sandbox's database (its SQLite file or PostgreSQL schema). */
export async function openSandboxDb(box: Sandbox): Promise<import('knex').Knex> {
  const { default: knex } = await import('knex');
  return box.dbFile
    ? knex({ client: 'sqlite3', connection: { filename: box.dbFile }, useNullAsDefault: true })
    : knex({ client: 'pg', connection: box.env.DATABASE_URL });
}

/** `work` on a connection of openSandboxDb, closed afterwards (with its list readers). */
export async function withSandboxDb<T>(box: Sandbox, work: (db: import('knex').Knex) => Promise<T>): Promise<T> {
  const db = await openSandboxDb(box);
  try {
    return await work(db);
  } finally {
    await closeDatabase(db);
  }
}

/** A sandbox with `accounts` made in it, and a connection of openSandboxDb to its database. */
export async function sandboxWithDb(
  accounts: Record<string, string>,
): Promise<{ box: Sandbox; db: import('knex').Knex }> {
  const box = await createSandbox();
  await createAccounts(box, accounts);
  return { box, db: await openSandboxDb(box) };
}

/** Closes what sandboxWithDb opened (either may be missing when it failed). */
export async function closeSandboxWithDb(box: Sandbox | undefined, db: import('knex').Knex | undefined): Promise<void> {
  await db?.destroy();
  await box?.cleanup();
}
