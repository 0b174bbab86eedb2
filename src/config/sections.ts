// The configuration file (docs/configuration.md): every key once, with its check and default. Deployment tools
// template `listen.*`, `database.*`, `dataDir` and `log.level`, so those keep their names.
import { oneOf, v } from '../validation.js';
import { group, int, publicUrl, rate, rateOrNull, section, slug, text, textOrNull, trustProxy } from './checks.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const MAX_BYTES = 2 ** 40;

export const listen = section({
  host: v.optional(text, '127.0.0.1'),
  port: v.optional(int(0, 65535), 8080),
});

export const database = section({
  client: v.optional(oneOf(['sqlite3', 'pg'] as const), 'sqlite3'),
  filename: v.optional(text, './data/archive.sqlite3'),
  /** PostgreSQL, required with client "pg" (or DATABASE_URL). */
  url: v.optional(textOrNull, null),
  busyTimeoutMs: v.optional(int(0, 600_000), 5000),
  /** PostgreSQL: how long one statement may run (statement_timeout; 0: no limit); past it a request gets 503. */
  statementTimeoutMs: v.optional(int(0, 86_400_000), 30_000),
  /** PostgreSQL: how long a request waits for a pooled connection before answering 503. */
  acquireTimeoutMs: v.optional(int(100, 600_000), 10_000),
  /** PostgreSQL: how long opening a connection (TCP and start-up) may take. */
  connectTimeoutMs: v.optional(int(100, 600_000), 5_000),
  pool: v.optional(
    v.pipe(
      group({ min: v.optional(int(0, 100), 0), max: v.optional(int(1, 100), 10) }),
      v.forward(
        v.check((pool) => pool.min <= pool.max, 'must not exceed "database.pool.max"'),
        ['min'],
      ),
    ),
    {},
  ),
});

export const log = section({
  level: v.optional(oneOf(LOG_LEVELS), 'info'),
  /** Whether /healthz, /readyz and /metrics get access-log lines (probes come every few seconds). */
  probes: v.optional(v.boolean('must be true or false'), false),
});

/** HSTS max-age, in seconds: up to two years (the HSTS preload list asks for at least one). */
const HSTS_MAX = 63_072_000;

export const tls = v.optional(
  v.pipe(
    group({
      cert: v.optional(textOrNull, null),
      key: v.optional(textOrNull, null),
      /** `Strict-Transport-Security: max-age=<hsts>` on every answer over TLS; 0: none. */
      hsts: v.optional(int(0, HSTS_MAX), 0),
    }),
    v.forward(
      v.check((pair) => Boolean(pair.cert) === Boolean(pair.key), 'and "tls.key" must be given together'),
      ['cert'],
    ),
    v.forward(
      v.check(
        (t) => t.hsts === 0 || Boolean(t.cert),
        'is sent only over HTTPS: set "tls.cert" and "tls.key" too, or set it to 0',
      ),
      ['hsts'],
    ),
  ),
  {},
);

export const limits = section({
  jsonBytes: v.optional(int(1, MAX_BYTES), 1_048_576),
  formBytes: v.optional(int(1, MAX_BYTES), 1_048_576),
  sipUploadBytes: v.optional(int(1, MAX_BYTES), 1_073_741_824),
  headerBytes: v.optional(int(1024, 1_048_576), 16_384),
  failedAuthDelayMs: v.optional(int(0, 10_000), 100),
  connections: v.optional(int(16, 1_000_000), 512),
  connectionsPerAddress: v.optional(int(1, 1_000_000), 64),
  pipelinedRequests: v.optional(int(1, 1024), 16),
  /** KDF (scrypt) runs at once, each on a thread of libuv's pool (docs/operations.md, restart cost) … */
  kdfConcurrency: v.optional(int(1, 64), 2),
  /** … and token checks waiting for one; beyond it (or 64 from one client), 503 with Retry-After. */
  kdfQueue: v.optional(int(1, 100_000), 1024),
  /** Heavy requests (exports, BEACON dumps, large reconciliation batches) served at once … */
  heavyRequests: v.optional(int(1, 1024), 4),
  /** … and waiting for a place; beyond both, 503 with Retry-After. */
  heavyQueue: v.optional(int(0, 100_000), 16),
  /** Requests a token may make (`600/hour`), unless it has a rate of its own; null: unlimited. */
  tokenRate: v.optional(rateOrNull, null),
  /** Requests without a token from one client address (an IPv6 client per /64); null: unlimited. */
  anonymousRate: v.optional(rateOrNull, null),
  /** Leaked-token reports (POST /api/tokens/revoke) from one client address. */
  reportRate: v.optional(rate, '10/hour'),
});

export const timeouts = section({
  headersMs: v.optional(int(100, 3_600_000), 10_000),
  requestMs: v.optional(int(100, 86_400_000), 300_000),
  keepAliveMs: v.optional(int(0, 3_600_000), 5_000),
  /** An answer (an export, a dump) whose client has not taken 64 KiB of it for this long is cut. */
  sendMs: v.optional(int(100, 3_600_000), 30_000),
  shutdownMs: v.optional(int(0, 3_600_000), 10_000),
});

/** The file as written: every section, relative paths as they stand. */
export const CONFIG_FILE = v.strictObject(
  {
    listen,
    database,
    /** SIP uploads (`sips/`), temporary upload files (`tmp/`), built exports and dumps (`exports/`). */
    dataDir: v.optional(text, './data'),
    /** Where clients reach the API (origin and path prefix), for absolute URLs; null: from the request. */
    publicUrl: v.optional(publicUrl, null),
    /** This installation's short name, the first part of Anton's `full_id` (`<slug>-actors-12`). */
    slug: v.optional(slug, 'archive'),
    log,
    /** Who may read /metrics: "off" nobody, "local" loopback (after `trustProxy`), "on" anyone. */
    metrics: v.optional(oneOf(['off', 'local', 'on']), 'local'),
    tls,
    trustProxy: v.optional(trustProxy, false),
    limits,
    timeouts,
  },
  'must be an object',
);

export type ConfigFile = v.InferOutput<typeof CONFIG_FILE>;

/** The built-in defaults: what an empty file (or none) gives. */
export const DEFAULTS: ConfigFile = v.parse(CONFIG_FILE, {});
