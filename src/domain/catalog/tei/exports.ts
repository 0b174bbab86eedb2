// Stored TEI exports (SPEC §4.4, issue 9), one for each resource whose description has a TEI
// projection (resources/: actors, places, keywords). A document is generated from the rows, kept in
// `tei_exports` and served from there — but never stale: every change to actors, places or
// keywords gives the kind a new random version (`tei_sources`, set by triggers in the same
// transaction as the change, whichever door wrote it; see migrations/*_tei_sources.js). A read
// compares the stored export's version with the current one (two one-row reads) and rebuilds the
// export first when they differ. GET /api/tei/refresh and `?ids=` rebuild unconditionally.
//
// Each stored export carries what conditional GET needs: `etag`, the SHA-256 of the document
// (the document holds no generation time, so the same data always gives the same bytes and the
// same ETag, refresh or not), and `modified_at`, when the content last changed.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { MAX_ROW_ID } from '../../../db/row-id.js';
import { invalid, notFound } from '../../../errors.js';
import type { Ctx } from '../../context.js';
import { RESOURCES } from '../resources/index.js';
import type { StoredRow as SourceRow, TeiProjection } from './document.js';

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

/**
 * The generator's output format. A stored export of another format (written by an older
 * version of the mapping) is rebuilt on its next read; change this whenever the mapping changes.
 */
export const TEI_FORMAT = 'tei-p5.2';

/** What a conditional GET needs to know about an export, without the document. */
export interface TeiExportMeta {
  kind: TeiKind;
  entries: number;
  /** SHA-256 of the document, base64url: the strong ETag (without quotes). */
  etag: string;
  /** ISO instant at which the content last changed (Last-Modified). */
  modifiedAt: string;
  /**
   * False only for a rebuild that lost the race to store it several times over: the document is
   * fresh, but `modifiedAt` was computed from a superseded export and must not be sent.
   */
  stored: boolean;
}

export interface TeiExport extends TeiExportMeta {
  document: string;
}

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

/** The current version of a kind's rows (changes with every write to the table). */
async function sourceVersion(db: Knex, kind: TeiKind): Promise<string | null> {
  const row = await db('tei_sources').where('kind', kind).first<{ version: string } | undefined>('version');
  return row?.version ?? null;
}

function storedRow(db: Knex, kind: TeiKind): Promise<StoredRow | undefined> {
  return db('tei_exports')
    .where('kind', kind)
    .first<StoredRow | undefined>(...META_COLUMNS);
}

const isFresh = (
  row: StoredRow | undefined,
  version: string | null,
): row is StoredRow & { etag: string; modified_at: string } =>
  row !== undefined &&
  version !== null &&
  row.source_version === version &&
  row.format === TEI_FORMAT &&
  row.etag !== null &&
  row.modified_at !== null;

const metaOf = (kind: TeiKind, row: StoredRow & { etag: string; modified_at: string }): TeiExportMeta => ({
  kind,
  entries: Number(row.entries),
  etag: row.etag,
  modifiedAt: row.modified_at,
  stored: true,
});

export function contentHash(document: string): string {
  return createHash('sha256').update(document, 'utf8').digest('base64url');
}

/**
 * The document of a kind from the current rows, and the newest `updated_at` among them. All
 * columns: the mapping (tei-document.ts) takes the fields it knows, including ones that later
 * migrations add (Anton's variants, abbreviations, SIKART and Wikipedia ids).
 */
async function build(
  db: Knex,
  kind: TeiKind,
): Promise<{ document: string; entries: number; lastChange: string | null }> {
  const rows = await db(kind).select<({ id: number | string } & Record<string, unknown>)[]>('*').orderBy('id');
  let lastChange: string | null = null;
  for (const { updated_at: at } of rows)
    if (typeof at === 'string' && (lastChange === null || at > lastChange)) lastChange = at;
  // PostgreSQL returns ids as numbers for integer columns, but normalise anyway: ids become xml:id values.
  const normalised: SourceRow[] = rows.map((r) => ({ ...r, id: Number(r.id) }));
  return { document: projectionOf(kind).document(normalised, lastChange), entries: rows.length, lastChange };
}

const SECOND = 1000;

/**
 * Last-Modified of new content. HTTP dates have whole seconds, so a client holding the old
 * content with `If-Modified-Since: <old second>` must see the new content as modified: the new
 * time lies at least in the second after the old one, whatever the clocks of the writers said
 * (a transaction can commit well after the `updated_at` it wrote). Otherwise it is the data's
 * last change, or now when that is unknown or in the future.
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
 * Builds the export from the current rows and stores it unless another process stored one
 * since `old` was read (compare-and-set on `revision`): answers the export and whether it was
 * stored. `version` must have been read before the rows: the stored version is then never newer
 * than the data, at worst older (and rebuilt once more).
 */
async function rebuild(
  ctx: Ctx,
  kind: TeiKind,
  version: string | null,
  old: StoredRow | undefined,
): Promise<{ exp: TeiExport; stored: boolean }> {
  const { document, entries, lastChange } = await build(ctx.db, kind);
  const now = ctx.clock.now();
  const etag = contentHash(document);
  const unchanged = old !== undefined && old.etag === etag && old.modified_at !== null;
  const modifiedAt = unchanged
    ? (old.modified_at as string)
    : nextModified(old ? (old.modified_at ?? old.generated_at) : null, lastChange, now);
  const meta = { source_version: version, format: TEI_FORMAT, entries, generated_at: now.toISOString() };
  const exp: TeiExport = { kind, entries, etag, modifiedAt, document, stored: true };
  if (old === undefined) {
    const rows: unknown = await ctx
      .db('tei_exports')
      .insert({ kind, document, etag, modified_at: modifiedAt, revision: 1, ...meta })
      .onConflict('kind')
      .ignore()
      .returning('kind');
    return { exp, stored: Array.isArray(rows) && rows.length > 0 };
  }
  // Unchanged content: only the bookkeeping is written, not the (possibly large) document again.
  const changes = unchanged ? meta : { ...meta, document, etag, modified_at: modifiedAt };
  const n = await ctx
    .db('tei_exports')
    .where({ kind, revision: old.revision })
    .update({ ...changes, revision: Number(old.revision) + 1 });
  return { exp, stored: Number(n) === 1 };
}

/**
 * Rebuilds in flight, per database and per (kind, version): concurrent reads that found the same
 * stale version share one rebuild. Only the same version: a read that saw a newer version must
 * not be answered with a rebuild that may have read the rows before that change.
 */
type Rebuild = Promise<{ exp: TeiExport; stored: boolean }>;
const inFlight = new WeakMap<Knex, Map<string, Rebuild>>();

function sharedRebuild(ctx: Ctx, kind: TeiKind, version: string | null, old: StoredRow | undefined): Rebuild {
  let byKey = inFlight.get(ctx.db);
  if (!byKey) inFlight.set(ctx.db, (byKey = new Map<string, Rebuild>()));
  const key = `${kind}:${version}:${old?.revision ?? 'none'}`;
  let p = byKey.get(key);
  if (!p) {
    const map = byKey;
    p = rebuild(ctx, kind, version, old).finally(() => map.delete(key));
    byKey.set(key, p);
  }
  return p;
}

/** Attempts before giving up on storing under heavy concurrent rebuilding (the answer is fresh regardless). */
const ATTEMPTS = 5;

/**
 * The export of a kind as of now: the stored one when it was built from the current version of
 * the rows, else rebuilt (and stored) first; `force` rebuilds in any case. The document is
 * included only when it was rebuilt (a fresh stored one is read by readExport, and only when
 * the client does not have it already).
 */
export async function currentExport(
  ctx: Ctx,
  kind: TeiKind,
  force = false,
): Promise<TeiExportMeta & { document?: string }> {
  let last: TeiExport | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const version = await sourceVersion(ctx.db, kind); // first: see rebuild()
    const old = await storedRow(ctx.db, kind);
    if (!force && isFresh(old, version)) return metaOf(kind, old);
    const { exp, stored } = await sharedRebuild(ctx, kind, version, old);
    if (stored) return { ...exp, stored: true };
    // Another process stored an export since `old` was read: look again (it may be the fresh one).
    last = exp;
    force = false;
  }
  // Not stored: fresh all the same, but its Last-Modified was computed from a superseded export.
  return { ...(last as TeiExport), stored: false };
}

/** The stored export with its document (after currentExport said it is fresh). */
export async function readExport(ctx: Ctx, kind: TeiKind): Promise<TeiExport> {
  const row = await ctx
    .db('tei_exports')
    .where('kind', kind)
    .first<(StoredRow & { document: string }) | undefined>('document', ...META_COLUMNS);
  if (row && row.etag !== null && row.modified_at !== null) {
    return { ...metaOf(kind, row as StoredRow & { etag: string; modified_at: string }), document: row.document };
  }
  const exp = await currentExport(ctx, kind, true);
  return { ...exp, document: exp.document ?? '' };
}

/** Regenerates the export of one kind from the current rows and stores it. */
export async function regenerateExport(ctx: Ctx, kind: TeiKind): Promise<TeiExport> {
  const exp = await currentExport(ctx, kind, true);
  return exp.document !== undefined ? { ...exp, document: exp.document } : readExport(ctx, kind);
}

/** Regenerates every export; answers the number of entries of each. */
export async function refreshExports(ctx: Ctx): Promise<Record<TeiKind, number>> {
  const counts: Record<TeiKind, number> = {};
  for (const kind of TEI_KINDS) counts[kind] = (await currentExport(ctx, kind, true)).entries;
  return counts;
}

/**
 * `?ids=` regenerates "those entries". An entry is derived from its row alone, so regenerating
 * the whole export from the current rows gives the same document as patching the listed
 * entries, without any risk of a stale neighbour. Every listed id must exist (else 404, and
 * nothing is stored).
 */
export async function regenerateEntries(ctx: Ctx, kind: TeiKind, ids: readonly number[]): Promise<TeiExport> {
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
  return regenerateExport(ctx, kind);
}

/**
 * The `ids` query parameter: a comma-separated list of positive integers (spaces around items
 * are allowed), at most MAX_IDS of them; duplicates count once. Anything else is a 422.
 */
export function parseIds(raw: unknown): number[] {
  const bad = (why: string) => invalid(`invalid ids: ${why}`, { ids: why });
  if (Array.isArray(raw)) throw bad('give ids once, as a comma-separated list');
  if (typeof raw !== 'string') throw bad('must be a comma-separated list of positive integers');
  const parts = raw.split(',');
  if (parts.length > MAX_IDS) throw bad(`at most ${MAX_IDS} ids per request`);
  const ids = new Set<number>();
  for (const part of parts) {
    const item = part.trim();
    if (!/^[1-9][0-9]{0,15}$/.test(item) || !Number.isSafeInteger(Number(item))) {
      throw bad('must be a comma-separated list of positive integers');
    }
    ids.add(Number(item));
  }
  return [...ids];
}
