// BEACON dumps as files, built once per version of `tei_sources`, per register, provider, narrowing and target
// URL. The target is the configured base, never the request's Host (a new Host each time would cost a build).
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Knex } from 'knex';
import type { Ctx } from '../../context.js';
import { openOrRebuild, SharedBuilds, slicesOf, tableVersion, withBuild } from '../export-file.js';
import { beaconHeader, beaconLine, type BeaconProvider } from './beacon.js';

/** Which dump: a register's links to one provider, some of its rows, linked under `baseUrl` (the configured base). */
export interface DumpRequest {
  /** What a dump needs of the resource's description. */
  source: { table: string; beacon?: { name: string } };
  provider: BeaconProvider;
  baseUrl: string;
  /** Some of the rows (an actor type): `key` names the choice, `apply` makes it in SQL. */
  narrow?: { key: string; apply: (q: Knex.QueryBuilder) => Knex.QueryBuilder };
}

/** A built dump with its validators for conditional GET. */
export interface BeaconDump {
  /** A strong entity tag: a hash of the exact text, quoted. */
  etag: string;
  /** The register's last change (whole seconds count in HTTP), null when it is empty. */
  lastModified: Date | null;
  file: string;
}

/** Where the dumps are kept, and the database they are built from. */
export type DumpCtx = Pick<Ctx, 'db'> & { dir: string };

/** Dumps kept per daemon, the least recently used removed first. */
const MAX_CACHED = 32;

type Cached = { version: string; dump: BeaconDump };
/** Per database: the dumps built, least recently used first (a Map keeps insertion order). */
const cached = new WeakMap<Knex, Map<string, Cached>>();
/** Builds in flight, per database and (dump, version): concurrent requests share one. */
const building = new SharedBuilds<BeaconDump>();

/** The latest `updated_at` of a table (ISO strings of one width sort as text), or null. */
async function lastChange(db: Knex, table: string): Promise<Date | null> {
  const row = await db(table).max({ at: 'updated_at' }).first<{ at?: unknown } | undefined>();
  if (typeof row?.at !== 'string') return null;
  const at = new Date(row.at);
  return Number.isNaN(at.getTime()) ? null : at;
}

/**
 * Builds the dump of `req`. Its timestamp (the table's last change) is read before the rows: rows may be newer
 * than it, never older (no 304 to a harvester that has not seen a write).
 */
async function build(ctx: DumpCtx, req: DumpRequest, key: string): Promise<BeaconDump> {
  const { table } = req.source;
  const column = req.provider; // the provider's identifiers are in the column of its name
  const lastModified = await lastChange(ctx.db, table);
  const name = `beacon-${createHash('sha256').update(key).digest('base64url').slice(0, 16)}-`;
  return withBuild(ctx.dir, async (file) => {
    await file.write(
      beaconHeader({
        provider: req.provider,
        name: req.source.beacon?.name ?? table,
        target: `${req.baseUrl}/api/${table}/{ID}`,
        timestamp: lastModified,
      }),
    );
    const rows = slicesOf<{ id: number | string; name: string; source: string }>(
      ctx.db,
      table,
      ['id', 'name', `${column} as source`],
      (q) => req.narrow?.apply(q.whereNotNull(column)) ?? q.whereNotNull(column),
    );
    for await (const slice of rows) {
      const links = slice.map((r) => ({ source: String(r.source), id: Number(r.id), annotation: String(r.name) }));
      await file.write(links.map(beaconLine).join(''));
    }
    const done = await file.finish(ctx.dir, (sha256) => `${name}${sha256.toString('base64url').slice(0, 32)}.txt`);
    return { etag: `"${done.sha256.toString('base64url').slice(0, 32)}"`, lastModified, file: done.file };
  });
}

/** Keeps a built dump, removing the file of the one it replaces and of the least recently used beyond MAX_CACHED. */
function remember(map: Map<string, Cached>, key: string, version: string, dump: BeaconDump): void {
  const old = map.get(key);
  map.delete(key);
  map.set(key, { version, dump });
  const gone: string[] = old && old.dump.file !== dump.file ? [old.dump.file] : [];
  for (const [k, entry] of map) {
    if (map.size <= MAX_CACHED) break;
    map.delete(k);
    gone.push(entry.dump.file);
  }
  for (const file of gone) void rm(file, { force: true }).catch(() => undefined);
}

/** The dump of `req` as of now: the one built for the table's current version, else built first. */
export async function beaconDump(ctx: DumpCtx, req: DumpRequest, rebuild = false): Promise<BeaconDump> {
  const key = [ctx.dir, req.source.table, req.provider, req.narrow?.key ?? '', req.baseUrl].join('\u0000');
  const version = await tableVersion(ctx.db, req.source.table); // before the rows: see tei/exports.ts
  let map = cached.get(ctx.db);
  if (!map) cached.set(ctx.db, (map = new Map<string, Cached>()));
  const hit = map.get(key);
  if (!rebuild && hit && hit.version === version) {
    map.delete(key); // most recently used: last
    map.set(key, hit);
    return hit.dump;
  }
  return building.run(ctx.db, `${key}\u0000${version}`, async () => {
    const dump = await build(ctx, req, key);
    if (version !== null) remember(map, key, version, dump);
    return dump;
  });
}

/** The file of `dump` opened for sending; one removed (by another daemon sharing dataDir, or by hand) is rebuilt. */
export async function openDump(ctx: DumpCtx, req: DumpRequest, dump: BeaconDump) {
  const opened = await openOrRebuild(dump, () => beaconDump(ctx, req, true), `the BEACON dump of ${req.source.table}`);
  return { dump: opened.built, handle: opened.handle };
}
