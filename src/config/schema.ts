// The configuration as the program uses it: the file's sections (sections.ts) with relative
// paths resolved against the config file's directory (so a systemd unit works from any working
// directory), the database reduced to what its client needs, and DATABASE_URL over the file.
import path from 'node:path';
import { v } from '../validation.js';
import * as sections from './sections.js';

export interface Place {
  /** Relative paths are resolved against this directory. */
  base: string;
  /** DATABASE_URL, checked by the caller: a postgres:// URL that replaces the database section. */
  databaseUrl?: string | undefined;
}

function database({ base, databaseUrl }: Place) {
  return v.pipe(
    sections.database,
    v.rawTransform(({ dataset: { value: db }, addIssue, NEVER }) => {
      if (databaseUrl) return { client: 'pg' as const, url: databaseUrl, ...pgSettings(db) };
      if (db.client === 'pg') {
        if (db.url) return { client: 'pg' as const, url: db.url, ...pgSettings(db) };
        addIssue({ message: 'is required when "database.client" is "pg"', path: urlPath(db) });
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

/** The issue path of `database.url`, for a message naming that key. */
function urlPath(db: sections.ConfigFile['database']): [v.ObjectPathItem] {
  return [{ type: 'object', origin: 'value', input: db, key: 'url', value: db.url }];
}

export function configSchema(place: Place) {
  const resolve = (p: string) => path.resolve(place.base, p);
  return v.strictObject(
    {
      ...sections.CONFIG_FILE.entries,
      database: database(place),
      dataDir: v.pipe(sections.CONFIG_FILE.entries.dataDir, v.transform(resolve)),
      tls: v.pipe(
        sections.tls,
        v.transform((t) => (t.cert && t.key ? { cert: resolve(t.cert), key: resolve(t.key) } : null)),
      ),
    },
    'must be an object',
  );
}

export type Config = v.InferOutput<ReturnType<typeof configSchema>> & {
  /** The file the configuration came from, or null for built-in defaults. */
  file: string | null;
};
