// Stored TEI exports (SPEC §4.4). Consumers fetch the exports often and the catalogue changes
// rarely, so a document is generated once, kept in `tei_exports` and served from there until
// someone asks for a refresh (GET /api/tei/refresh, or `?ids=` for a kind).
import type { Knex } from 'knex';
import { writeTransaction } from '../../db/connect.js';
import { invalid, notFound } from '../../errors.js';
import type { Ctx } from '../context.js';
import {
  actorsDocument,
  keywordsDocument,
  placesDocument,
  type ActorRow,
  type KeywordRow,
  type PlaceRow,
} from './tei-document.js';

export const TEI_KINDS = ['actors', 'places', 'keywords'] as const;
export type TeiKind = (typeof TEI_KINDS)[number];

export interface TeiExport {
  kind: TeiKind;
  document: string;
  entries: number;
  generatedAt: string;
}

/** At most this many ids in one `?ids=` request. */
export const MAX_IDS = 1000;
/** Row ids are 32-bit integers on PostgreSQL; a larger id cannot exist (and must not reach the query). */
const MAX_ROW_ID = 2_147_483_647;

type Reader = Knex | Knex.Transaction;

const COLUMNS: Record<TeiKind, readonly string[]> = {
  actors: ['id', 'type', 'name', 'label', 'alternative_names', 'date_start', 'date_end', 'comment', 'gnd'],
  places: ['id', 'name', 'label', 'city', 'state', 'address', 'country_code', 'location', 'alternative_names', 'comment', 'gnd', 'geonames'],
  keywords: ['id', 'name', 'label', 'gnd'],
};

async function build(db: Reader, kind: TeiKind, generatedAt: string): Promise<{ document: string; entries: number }> {
  const rows = (await db(kind).select(COLUMNS[kind]).orderBy('id')) as { id: number | string }[];
  // PostgreSQL returns ids as numbers for integer columns, but normalise anyway: ids become xml:id values.
  const normalised = rows.map((r) => ({ ...r, id: Number(r.id) }));
  const document =
    kind === 'actors'
      ? actorsDocument(normalised as ActorRow[], generatedAt)
      : kind === 'places'
        ? placesDocument(normalised as PlaceRow[], generatedAt)
        : keywordsDocument(normalised as KeywordRow[], generatedAt);
  return { document, entries: rows.length };
}

async function store(trx: Knex.Transaction, kind: TeiKind, generatedAt: string): Promise<TeiExport> {
  const { document, entries } = await build(trx, kind, generatedAt);
  // Upsert: two daemons regenerating at once both succeed, and the later one wins.
  await trx('tei_exports')
    .insert({ kind, document, entries, generated_at: generatedAt })
    .onConflict('kind')
    .merge(['document', 'entries', 'generated_at']);
  return { kind, document, entries, generatedAt };
}

/** Regenerates the export of one kind from the current rows and stores it. */
export async function regenerateExport(ctx: Ctx, kind: TeiKind): Promise<TeiExport> {
  const generatedAt = ctx.clock.now().toISOString();
  return writeTransaction(ctx.db, (trx) => store(trx, kind, generatedAt));
}

/** The stored export of a kind, generated and stored first if there is none yet. */
export async function getExport(ctx: Ctx, kind: TeiKind): Promise<TeiExport> {
  const row = (await ctx.db('tei_exports').where('kind', kind).first('document', 'entries', 'generated_at')) as
    | { document: string; entries: number | string; generated_at: string }
    | undefined;
  if (row) return { kind, document: row.document, entries: Number(row.entries), generatedAt: row.generated_at };
  return regenerateExport(ctx, kind);
}

/** Regenerates all three exports in one transaction; answers the number of entries of each. */
export async function refreshExports(ctx: Ctx): Promise<Record<TeiKind, number>> {
  const generatedAt = ctx.clock.now().toISOString();
  return writeTransaction(ctx.db, async (trx) => {
    const counts: Record<TeiKind, number> = { actors: 0, places: 0, keywords: 0 };
    for (const kind of TEI_KINDS) counts[kind] = (await store(trx, kind, generatedAt)).entries;
    return counts;
  });
}

/**
 * `?ids=` regenerates "those entries". An entry is derived from its row alone, so regenerating
 * the whole export from the current rows gives the same document as patching the listed
 * entries, without any risk of a stale neighbour. Every listed id must exist (else 404).
 */
export async function regenerateEntries(ctx: Ctx, kind: TeiKind, ids: readonly number[]): Promise<TeiExport> {
  const generatedAt = ctx.clock.now().toISOString();
  return writeTransaction(ctx.db, async (trx) => {
    const possible = ids.filter((id) => id <= MAX_ROW_ID);
    const found = new Set<number>();
    // Chunked: SQLite limits the number of bound parameters per statement.
    for (let i = 0; i < possible.length; i += 500) {
      const rows = (await trx(kind).whereIn('id', possible.slice(i, i + 500)).select('id')) as { id: number | string }[];
      for (const r of rows) found.add(Number(r.id));
    }
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) {
      const shown = missing.slice(0, 20).join(', ') + (missing.length > 20 ? ', …' : '');
      throw notFound(`no ${kind.replace(/s$/, '')} with id ${shown}`);
    }
    return store(trx, kind, generatedAt);
  });
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
