// The configuration as the program uses it: paths resolved against the config file's directory (so a unit
// works from any working directory), and DATABASE_URL over the file.
import path from 'node:path';
import { v } from '../validation.js';
import * as sections from './sections.js';

/** `databaseUrl`: DATABASE_URL, whose postgres:// form the caller checks. */
function database(base: string, databaseUrl: string | undefined) {
  return v.pipe(
    sections.database,
    v.rawTransform(({ dataset: { value: db }, addIssue, NEVER }) => {
      const url = databaseUrl || (db.client === 'pg' ? db.url : null);
      if (url) return { client: 'pg' as const, url, ...pgSettings(db) };
      if (db.client === 'pg') {
        addIssue({
          message: 'is required when "database.client" is "pg"',
          path: [{ type: 'object', origin: 'value', input: db, key: 'url', value: db.url }],
        });
        return NEVER;
      }
      return { client: 'sqlite3' as const, filename: path.resolve(base, db.filename), busyTimeoutMs: db.busyTimeoutMs };
    }),
  );
}

/** What a PostgreSQL handle needs of the section besides its URL: the pool and the timeouts. */
function pgSettings(db: sections.ConfigFile['database']): {
  pool: sections.ConfigFile['database']['pool'];
  statementTimeoutMs?: number;
  acquireTimeoutMs?: number;
  connectTimeoutMs?: number;
} {
  const { pool, statementTimeoutMs, acquireTimeoutMs, connectTimeoutMs } = db;
  return { pool, statementTimeoutMs, acquireTimeoutMs, connectTimeoutMs };
}

/** Behind a proxy a request's Host is the client's to choose, so `trustProxy` needs `publicUrl` for absolute URLs. */
const PUBLIC_URL_BEHIND_PROXY =
  'is required when "trustProxy" names proxies: set it to the origin clients use through the proxy, e.g. "https://archive.example.org"';

export function configSchema(base: string, databaseUrl: string | undefined) {
  const resolve = (p: string) => path.resolve(base, p);
  const file = v.strictObject(
    {
      ...sections.CONFIG_FILE.entries,
      database: database(base, databaseUrl),
      dataDir: v.pipe(sections.CONFIG_FILE.entries.dataDir, v.transform(resolve)),
      tls: v.pipe(
        sections.tls,
        v.transform((t) => (t.cert && t.key ? { cert: resolve(t.cert), key: resolve(t.key), hsts: t.hsts } : null)),
      ),
    },
    'must be an object',
  );
  return v.pipe(
    file,
    v.forward(
      v.check((c) => c.trustProxy === false || c.publicUrl !== null, PUBLIC_URL_BEHIND_PROXY),
      ['publicUrl'],
    ),
  );
}

export type Config = v.InferOutput<ReturnType<typeof configSchema>> & {
  /** The file the configuration came from, or null for built-in defaults. */
  file: string | null;
};
