// The knex settings of a PostgreSQL handle: the pool, and the timeouts that turn a database that is
// away or stalled into prompt errors (answered 503 by the daemon) instead of requests that wait for
// ever: connecting, waiting for a pooled connection, running one statement (see DatabaseUse).
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import { DEFAULTS } from '../config/sections.js';
import { quietConnectionErrors } from './dialect.js';

/**
 * Who a handle serves: `daemon` bounds each statement by `database.statementTimeoutMs`; `command` (the CLI,
 * start-up migrations) runs them as long as the data needs. Connecting stays bounded for both.
 */
export type DatabaseUse = 'daemon' | 'command';

/** The client waits a little longer than the server, whose own cancellation is the cleaner end. */
const CLIENT_GRACE_MS = 1_000;

interface PooledConnection {
  query: (...args: unknown[]) => unknown;
  /** knex destroys a connection carrying this mark instead of handing it out again. */
  __knex__disposed?: unknown;
}

/** A connection whose statement the client gave up on is destroyed, never reused: its transaction is still open. */
function discardAfterClientTimeout(conn: PooledConnection, done: (err: Error | null, conn: unknown) => void): void {
  const query = conn.query.bind(conn);
  conn.query = (...args: unknown[]) => {
    const callback = args.at(-1);
    if (typeof callback === 'function') {
      args[args.length - 1] = (err: Error | null, ...rest: unknown[]) => {
        if (err && /^Query read timeout$/.test(err.message)) conn.__knex__disposed = err;
        return (callback as (...a: unknown[]) => unknown)(err, ...rest);
      };
    }
    return query(...args);
  };
  done(null, conn);
}

export function pgKnexConfig(database: Extract<Config['database'], { client: 'pg' }>, use: DatabaseUse): Knex.Config {
  const statement = use === 'daemon' ? (database.statementTimeoutMs ?? DEFAULTS.database.statementTimeoutMs) : 0;
  return {
    client: 'pg',
    connection: {
      connectionString: database.url,
      connectionTimeoutMillis: database.connectTimeoutMs ?? DEFAULTS.database.connectTimeoutMs,
      // A connection whose server vanished without closing it is found out by the kernel.
      keepAlive: true,
      ...(statement > 0 ? { statement_timeout: statement, query_timeout: statement + CLIENT_GRACE_MS } : {}),
    },
    acquireConnectionTimeout: database.acquireTimeoutMs ?? DEFAULTS.database.acquireTimeoutMs,
    pool: { min: database.pool.min, max: database.pool.max, afterCreate: discardAfterClientTimeout },
    // Error messages without the SQL and its bound values (hashes among them).
    compileSqlOnError: false,
    log: { warn: quietConnectionErrors },
  };
}
