// Configuration (SPEC §5): --config, then ARCHIVE_CONFIG, then ./config.json, then defaults.
// Every key is checked; a bad one stops the program with one line naming the key and the file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { configError } from './errors.js';
import proxyaddr from 'proxy-addr';

export interface Config {
  /** The file the configuration came from, or null for built-in defaults. */
  file: string | null;
  listen: { host: string; port: number };
  database:
    | { client: 'sqlite3'; filename: string; busyTimeoutMs: number }
    | { client: 'pg'; url: string; pool: { min: number; max: number } };
  dataDir: string;
  /** The origin (and path prefix) clients reach the API at, for absolute URLs in documents; null: from the request. */
  publicUrl: string | null;
  /** This installation's short name, the first part of Anton's `full_id` (`<slug>-actors-12`). */
  slug: string;
  log: { level: LogLevel };
  tls: { cert: string; key: string } | null;
  trustProxy: TrustProxy;
  limits: {
    jsonBytes: number;
    formBytes: number;
    sipUploadBytes: number;
    headerBytes: number;
    failedAuthDelayMs: number;
    connections: number;
    connectionsPerAddress: number;
    pipelinedRequests: number;
    kdfConcurrency: number;
    kdfQueue: number;
  };
  timeouts: {
    headersMs: number;
    requestMs: number;
    keepAliveMs: number;
    shutdownMs: number;
  };
}

/** Which peers may name the client in X-Forwarded-For: none, a hop count, or addresses/ranges. */
export type TrustProxy = false | number | string[];

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Shape = { [key: string]: Shape | Check };
type Check = (value: unknown) => string | null; // an error message, or null when fine

const str: Check = (v) => (typeof v === 'string' && v.length > 0 ? null : 'must be a non-empty string');
const strOrNull: Check = (v) => (v === null ? null : str(v));
const int =
  (min: number, max: number): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max
      ? null
      : `must be an integer from ${min} to ${max}`;
const oneOf =
  (...choices: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && choices.includes(v) ? null : `must be one of ${choices.join(', ')}`;

const MAX_BYTES = 2 ** 40;

// `true` (trust whoever connects) is refused: any client could then choose its own address and
// with it a fresh failure budget. The proxies must be named.
const trustProxyCheck: Check = (v) => {
  if (v === false) return null;
  if (v === true) return 'must name the proxies: a list such as ["127.0.0.1"] or ["10.0.0.0/8"], or a hop count such as 1';
  if (Number.isInteger(v)) return (v as number) >= 1 && (v as number) <= 16 ? null : 'as a hop count must be from 1 to 16';
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && x.length > 0)) {
    try {
      proxyaddr.compile(v as string[]);
      return null;
    } catch (err) {
      return `has an address or range that cannot be read (${(err as Error).message})`;
    }
  }
  return 'must be false, a list of proxy addresses or CIDR ranges, or a hop count';
};

// The accepted keys. `listen.*`, `database.*`, `dataDir` and `log.level` keep their names:
// deployment tools template them.
const SHAPE: Shape = {
  listen: { host: str, port: int(0, 65535) },
  database: {
    client: oneOf('sqlite3', 'pg'),
    filename: str,
    url: strOrNull,
    busyTimeoutMs: int(0, 600_000),
    pool: { min: int(0, 100), max: int(1, 100) },
  },
  dataDir: str,
  publicUrl: (v) =>
    v === null || (typeof v === 'string' && /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(v) && !v.endsWith('/'))
      ? null
      : 'must be null or an http(s) URL without query or trailing slash, e.g. "https://archive.example.org"',
  slug: (v) => (typeof v === 'string' && /^[a-z0-9][a-z0-9_]{0,31}$/.test(v) ? null : 'must be 1-32 lowercase letters, digits or _'),
  log: { level: oneOf(...LOG_LEVELS) },
  tls: { cert: strOrNull, key: strOrNull },
  trustProxy: trustProxyCheck,
  limits: {
    jsonBytes: int(1, MAX_BYTES),
    formBytes: int(1, MAX_BYTES),
    sipUploadBytes: int(1, MAX_BYTES),
    headerBytes: int(1024, 1_048_576),
    failedAuthDelayMs: int(0, 10_000),
    connections: int(16, 1_000_000),
    connectionsPerAddress: int(1, 1_000_000),
    pipelinedRequests: int(1, 1024),
    kdfConcurrency: int(1, 64),
    kdfQueue: int(1, 100_000),
  },
  timeouts: {
    headersMs: int(100, 3_600_000),
    requestMs: int(100, 86_400_000),
    keepAliveMs: int(0, 3_600_000),
    shutdownMs: int(0, 3_600_000),
  },
};

export const DEFAULTS = {
  listen: { host: '127.0.0.1', port: 8080 },
  database: {
    client: 'sqlite3',
    filename: './data/archive.sqlite3',
    url: null,
    busyTimeoutMs: 5000,
    pool: { min: 0, max: 10 },
  },
  dataDir: './data',
  publicUrl: null,
  slug: 'archive',
  log: { level: 'info' },
  tls: { cert: null, key: null },
  trustProxy: false,
  limits: {
    jsonBytes: 1_048_576,
    formBytes: 1_048_576,
    sipUploadBytes: 1_073_741_824,
    headerBytes: 16_384,
    failedAuthDelayMs: 100,
    connections: 512,
    connectionsPerAddress: 64,
    pipelinedRequests: 16,
    kdfConcurrency: 1,
    kdfQueue: 64,
  },
  timeouts: { headersMs: 10_000, requestMs: 300_000, keepAliveMs: 5_000, shutdownMs: 10_000 },
};

function validate(value: unknown, shape: Shape, prefix: string, where: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw configError(`config error: ${prefix ? `"${prefix}"` : 'the top level'} must be an object in ${where}`);
  }
  for (const [key, v] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    const rule = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (rule === undefined) throw configError(`config error: unknown key "${name}" in ${where}`);
    if (typeof rule === 'function') {
      const problem = rule(v);
      if (problem) throw configError(`config error: "${name}" ${problem} in ${where}`);
    } else {
      validate(v, rule, name, where);
    }
  }
}

export type Json = { [key: string]: unknown };

/** `over` laid on `base`, objects merged key by key (arrays and other values replaced). */
export function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [key, v] of Object.entries(over)) {
    const b = base[key];
    out[key] =
      b && typeof b === 'object' && !Array.isArray(b) && v && typeof v === 'object' && !Array.isArray(v)
        ? merge(b as Json, v as Json)
        : v;
  }
  return out;
}

/** Which file to read: the flag, then ARCHIVE_CONFIG, then ./config.json when present. */
export function configPath(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string | null {
  if (flag) return path.resolve(cwd, flag);
  if (env.ARCHIVE_CONFIG) return path.resolve(cwd, env.ARCHIVE_CONFIG);
  const local = path.join(cwd, 'config.json');
  return existsSync(local) ? local : null;
}

export function loadConfig(
  flag?: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Config {
  const file = configPath(flag, env, cwd);
  let raw: Json = {};
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw configError(`config error: cannot read ${file} (${code})`);
    }
    try {
      raw = JSON.parse(text) as Json;
    } catch (err) {
      throw configError(`config error: ${file} is not valid JSON (${(err as Error).message})`);
    }
    validate(raw, SHAPE, '', file);
  }
  const merged = merge(DEFAULTS as unknown as Json, raw) as typeof DEFAULTS & Json;
  // Relative paths are resolved against the config file's directory, so a systemd unit works
  // from any working directory; without a file, against the working directory.
  const base = file ? path.dirname(file) : cwd;
  const where = file ?? 'the built-in defaults';
  const resolve = (p: string) => path.resolve(base, p);

  const db = merged.database as typeof DEFAULTS.database & { url: string | null };
  const databaseUrl = env.DATABASE_URL;
  let database: Config['database'];
  if (databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
      throw configError('config error: DATABASE_URL must be a postgres:// URL');
    }
    database = { client: 'pg', url: databaseUrl, pool: db.pool };
  } else if (db.client === 'pg') {
    if (!db.url) throw configError(`config error: "database.url" is required when "database.client" is "pg" in ${where}`);
    database = { client: 'pg', url: db.url, pool: db.pool };
  } else {
    database = { client: 'sqlite3', filename: resolve(db.filename), busyTimeoutMs: db.busyTimeoutMs };
  }
  if (db.pool.min > db.pool.max) {
    throw configError(`config error: "database.pool.min" must not exceed "database.pool.max" in ${where}`);
  }

  const tls = merged.tls as { cert: string | null; key: string | null };
  if (Boolean(tls.cert) !== Boolean(tls.key)) {
    throw configError(`config error: "tls.cert" and "tls.key" must be given together in ${where}`);
  }

  return {
    file,
    listen: merged.listen,
    database,
    dataDir: resolve(merged.dataDir),
    publicUrl: merged.publicUrl as string | null,
    slug: merged.slug,
    log: merged.log as Config['log'],
    tls: tls.cert && tls.key ? { cert: resolve(tls.cert), key: resolve(tls.key) } : null,
    trustProxy: merged.trustProxy as TrustProxy,
    limits: merged.limits,
    timeouts: merged.timeouts,
  };
}
