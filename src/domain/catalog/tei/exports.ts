// Stored TEI exports, one file per resource, never stale: triggers give a kind a new version on any change
// (`tei_sources`), and a read rebuilds first when the stored version differs or the file is missing.
import path from 'node:path';
import type { Knex } from 'knex';
import { MAX_ROW_ID } from '../../../db/row-id.js';
import { invalid, notFound } from '../../../errors.js';
import type { Ctx } from '../../context.js';
import {
  FileBuild,
  openOrRebuild,
  removeOthers,
  SharedBuilds,
  slicesOf,
  tableVersion,
  withBuild,
} from '../export-file.js';
import { RESOURCES } from '../resources/index.js';
import type { TeiProjection, TeiSection } from './document.js';

/** A resource with a TEI export: its table, which also names the export (/api/tei/<kind>). */
export type TeiKind = string;

const PROJECTIONS = new Map<TeiKind, TeiProjection & { what: string }>(
  RESOURCES.flatMap((r) => (r.tei ? [[r.table, { ...r.tei, what: r.what }] as const] : [])),
);

/** The kinds with a TEI export, in the order of the descriptions. */
export const TEI_KINDS: readonly TeiKind[] = [...PROJECTIONS.keys()];

/** The projection of a kind; the routes are built from TEI_KINDS, so any other is a bug. */
function projectionOf(kind: TeiKind): TeiProjection & { what: string } {
  const projection = PROJECTIONS.get(kind);
  if (!projection) throw new Error(`no TEI export of "${kind}"`);
  return projection;
}

// The mapping's output format: a stored export of another (an older mapping's) is rebuilt on read.
export const TEI_FORMAT = 'tei-p5.2';

/** What a conditional GET needs to know about an export, without the document. */
export interface TeiExportMeta {
  kind: TeiKind;
  entries: number;
  /** SHA-256 of the document, base64url: the strong ETag (without quotes). */
  etag: string;
  /** ISO instant at which the content last changed (Last-Modified). */
  modifiedAt: string;
  /** False when a rebuild lost every race to store it: fresh, but `modifiedAt` (of a superseded export) is not sent. */
  stored: boolean;
}

/** An export with its file (under the exports directory, named by its ETag). */
export type TeiExport = TeiExportMeta & { file: string };

/** An export as currentExport answers it: with its file when it was just built. */
type CurrentExport = TeiExportMeta & { file?: string };

/** Where the exports are kept, and the database they are built from. */
export type ExportCtx = Ctx & { dir: string };

/** The file of an export's content: its kind and its ETag. */
const fileOf = (dir: string, kind: TeiKind, etag: string): string => path.join(dir, `${kind}-${etag}.xml`);

/** At most this many ids in one `?ids=` request. */
export const MAX_IDS = 1000;

interface StoredRow {
  entries: number | string;
  source_version: string | null;
  format: string | null;
  etag: string | null;
  modified_at: string | null;
  generated_at: string;
  revision: number | string;
}

const META_COLUMNS = [
  'entries',
  'source_version',
  'format',
  'etag',
  'modified_at',
  'generated_at',
  'revision',
] as const;

/** The stored export, when it was built from `version` of the rows by this mapping; else null. */
function freshMeta(kind: TeiKind, row: StoredRow | undefined, version: string | null): TeiExportMeta | null {
  if (!row || version === null || row.source_version !== version || row.format !== TEI_FORMAT) return null;
  if (row.etag === null || row.modified_at === null) return null;
  return {
    kind,
    entries: Number(row.entries),
    etag: row.etag,
    modifiedAt: row.modified_at,
    stored: true,
  };
}

/** A section's rows in SQL: the choice sectionHolds makes (a NULL column is in no list). */
function narrowTo(section: TeiSection): (q: Knex.QueryBuilder) => Knex.QueryBuilder {
  const rows = section.rows;
  if (!rows) return (q) => q;
  return rows.not
    ? (q) =>
        q.where((b) => {
          void b.whereNotIn(rows.column, [...rows.values]).orWhereNull(rows.column);
        })
    : (q) => q.whereIn(rows.column, [...rows.values]);
}

/** Keeps a marker in a frame apart from any text: NUL cannot occur in an XML document. */
const marker = (i: number) => `\u0000${i}\u0000`;
// eslint-disable-next-line no-control-regex
const MARKER = /\u0000(\d+)\u0000/;

/** Builds the export of a kind into a file named by its hash: each section to a file, then the frame around them. */
async function build(ctx: ExportCtx, kind: TeiKind) {
  const projection = projectionOf(kind);
  let lastChange: string | null = null;
  const parts: FileBuild[] = [];
  const counts: number[] = [];
  try {
    for (const section of projection.sections) {
      const part = await FileBuild.start(ctx.dir);
      parts.push(part);
      let count = 0;
      type Row = { id: number | string } & Record<string, unknown>;
      for await (const rows of slicesOf<Row>(ctx.db, kind, ['*'], narrowTo(section))) {
        const out: string[] = [];
        for (const row of rows) {
          // Ids as numbers (they become xml:id values); narrowTo chose the section's rows in SQL.
          out.push(section.entry({ ...row, id: Number(row.id) }));
          const at = row.updated_at;
          if (typeof at === 'string' && (lastChange === null || at > lastChange)) lastChange = at;
        }
        if (out.length === 0) continue;
        await part.write(`${count > 0 ? '\n' : ''}${out.join('\n')}`);
        count += out.length;
      }
      counts.push(count);
    }
    for (const part of parts) await part.close();
    const entries = counts.reduce((a, b) => a + b, 0);
    const placed = counts.map((n, i) => (n > 0 ? marker(i) : null));
    const frame = projection.frame(placed, entries, lastChange);
    const done = await withBuild(ctx.dir, async (whole) => {
      for (const [i, piece] of frame.split(MARKER).entries()) {
        // Odd pieces are the numbers of the sections that stand there.
        if (i % 2 === 0) await whole.write(piece);
        else await whole.append((parts[Number(piece)] as FileBuild).path);
      }
      return whole.finish(ctx.dir, (sha256) => path.basename(fileOf(ctx.dir, kind, sha256.toString('base64url'))));
    });
    return { file: done.file, etag: done.sha256.toString('base64url'), entries, lastChange };
  } finally {
    await Promise.all(parts.map((p) => p.abort()));
  }
}

const SECOND = 1000;

/**
 * Last-Modified of new content: the data's last change (now if unknown or future), but at least the second
 * after the old one, so a client's `If-Modified-Since: <old second>` sees the new content as modified.
 */
export function nextModified(previous: string | null, dataChange: string | null, now: Date): string {
  const nowMs = now.getTime();
  const data = dataChange === null ? Number.NaN : Date.parse(dataChange);
  let at = Number.isNaN(data) ? nowMs : Math.min(data, nowMs);
  const before = previous === null ? Number.NaN : Date.parse(previous);
  if (!Number.isNaN(before)) at = Math.max(at, Math.floor(before / SECOND) * SECOND + SECOND);
  return new Date(at).toISOString();
}

/**
 * Builds the export and stores it unless another process stored one since `old` was read (compare-and-set on
 * `revision`); answers it and whether it was stored. `version` was read before the rows: never newer than them.
 */
async function rebuild(ctx: ExportCtx, kind: TeiKind, version: string | null, old: StoredRow | undefined) {
  const { file, etag, entries, lastChange } = await build(ctx, kind);
  const now = ctx.clock.now();
  const unchanged = old !== undefined && old.etag === etag && old.modified_at !== null;
  const modifiedAt = unchanged
    ? (old.modified_at as string)
    : nextModified(old ? (old.modified_at ?? old.generated_at) : null, lastChange, now);
  const meta = { source_version: version, format: TEI_FORMAT, entries, generated_at: now.toISOString(), document: '' };
  const exp: TeiExport = { kind, entries, etag, modifiedAt, file, stored: true };
  let stored: boolean;
  if (old === undefined) {
    const rows: unknown = await ctx
      .db('tei_exports')
      .insert({ kind, etag, modified_at: modifiedAt, revision: 1, ...meta })
      .onConflict('kind')
      .ignore()
      .returning('kind');
    stored = Array.isArray(rows) && rows.length > 0;
  } else {
    const changes = unchanged ? meta : { ...meta, etag, modified_at: modifiedAt };
    const n = await ctx
      .db('tei_exports')
      .where({ kind, revision: old.revision })
      .update({ ...changes, revision: Number(old.revision) + 1 });
    stored = Number(n) === 1;
  }
  if (stored) await removeOthers(ctx.dir, `${kind}-`, file);
  return { exp, stored };
}

/**
 * Rebuilds in flight per database and (kind, version), shared by reads that found the same stale
 * version; not by a read of a newer version: the rebuild may have read the rows before its change.
 */
const rebuilding = new SharedBuilds<{ exp: TeiExport; stored: boolean }>();

/** Attempts before giving up on storing under heavy concurrent rebuilding (the answer is fresh regardless). */
const ATTEMPTS = 5;

/**
 * The export of a kind as of now: stored when built from the rows' current version, else rebuilt
 * and stored first (`force`: always); openExport opens its file if the client lacks the content.
 */
export async function currentExport(ctx: ExportCtx, kind: TeiKind, force = false): Promise<CurrentExport> {
  let last: TeiExport | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const version = await tableVersion(ctx.db, kind); // first: see rebuild()
    const old = await ctx
      .db('tei_exports')
      .where('kind', kind)
      .first<StoredRow | undefined>(...META_COLUMNS);
    const fresh = force ? null : freshMeta(kind, old, version);
    if (fresh) return fresh;
    const key = `${ctx.dir}:${kind}:${version}:${old?.revision ?? 'none'}`;
    const { exp, stored } = await rebuilding.run(ctx.db, key, () => rebuild(ctx, kind, version, old));
    if (stored) return { ...exp, stored: true };
    // Another process stored an export since `old` was read: look again (it may be the fresh one).
    last = exp;
    force = false;
  }
  return { ...(last as TeiExport), stored: false };
}

/**
 * The file of `meta` (from currentExport), opened for sending; one that is gone (another dataDir,
 * or replaced) is rebuilt: the answer is then the export as of now, which `meta` may not describe.
 */
export async function openExport(ctx: ExportCtx, meta: CurrentExport) {
  const withFile = (m: CurrentExport): TeiExport => ({
    ...m,
    file: m.file ?? fileOf(ctx.dir, m.kind, m.etag),
  });
  const opened = await openOrRebuild(
    withFile(meta),
    async () => withFile(await currentExport(ctx, meta.kind, true)),
    `the TEI export of ${meta.kind}`,
  );
  return { exp: opened.built, handle: opened.handle };
}

/** Regenerates every export; answers the number of entries of each. */
export async function refreshExports(ctx: ExportCtx): Promise<Record<TeiKind, number>> {
  const counts: Record<TeiKind, number> = {};
  for (const kind of TEI_KINDS) counts[kind] = (await currentExport(ctx, kind, true)).entries;
  return counts;
}

/**
 * `?ids=` regenerates "those entries": every id must exist (else 404, nothing built or stored). An
 * entry derives from its row alone, so the export as of now (rebuilt when stale) is that rebuild.
 */
export async function checkIds(ctx: Ctx, kind: TeiKind, ids: readonly number[]): Promise<void> {
  const possible = ids.filter((id) => id <= MAX_ROW_ID);
  const found = new Set<number>();
  // Chunked: SQLite limits the number of bound parameters per statement.
  for (let i = 0; i < possible.length; i += 500) {
    const rows = await ctx
      .db(kind)
      .whereIn('id', possible.slice(i, i + 500))
      .select<{ id: number | string }[]>('id');
    for (const r of rows) found.add(Number(r.id));
  }
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) {
    const shown = missing.slice(0, 20).join(', ') + (missing.length > 20 ? ', …' : '');
    throw notFound(`no ${projectionOf(kind).what} with id ${shown}`);
  }
}

/** `ids`: comma-separated positive integers (spaces around allowed), at most MAX_IDS, duplicates once; else a 422. */
export function parseIds(raw: unknown): number[] {
  const bad = (why: string) => invalid(`invalid ids: ${why}`, { ids: why });
  if (Array.isArray(raw)) throw bad('give ids once, as a comma-separated list');
  if (typeof raw !== 'string') throw bad('must be a comma-separated list of positive integers');
  const items = raw.split(',').map((part) => part.trim());
  if (items.length > MAX_IDS) throw bad(`at most ${MAX_IDS} ids per request`);
  const isId = (item: string) => /^[1-9][0-9]{0,15}$/.test(item) && Number.isSafeInteger(Number(item));
  if (!items.every(isId)) throw bad('must be a comma-separated list of positive integers');
  return [...new Set(items.map(Number))];
}
