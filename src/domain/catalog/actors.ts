// Actors: persons and organisations (SPEC §4.4). POST creates, PUT changes the fields given.
// Anton's ActorInput is accepted beside our shape (anton-input.ts).
import { invalid } from '../../errors.js';
import type { Ctx } from '../context.js';
import { createRecord, getRecord, updateRecord, type RecordTable } from './records.js';
import { dateBefore, field, gndId, isStringArray, isStringRecord, jsonColumn, labelMap, name, nameList, oneOf, parseJsonColumn, partialDate, READ_ONLY, readFields, sikartId, text, type FieldValues, type Read } from './fields.js';
import { DERIVED_FIELDS, type AuthorityCode } from './anton-fields.js';
import { mapAntonActor, nameFollowsLabel } from './anton-input.js';
import { beaconDump, type BeaconDump } from './beacon.js';
import { pageOf, whereLike, type ListOptions, type ListQuery, type ListResult } from './list.js';
import type { Knex } from 'knex';
import { insertedId } from '../../db/row-id.js';

export const ACTOR_TYPES = ['person', 'family', 'corporate_body', 'organisational_unit', 'group', 'software'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface Actor {
  id: number;
  type: ActorType;
  name: string;
  label: Record<string, string> | null;
  alternative_names: string[] | null;
  variants: string[] | null;
  abbreviations: string[] | null;
  date_start: string | null;
  date_end: string | null;
  comment: string | null;
  gnd: string | null;
  sikart: string | null;
  created_at: string;
  updated_at: string;
}

export const ACTOR_FIELDS = {
  type: field(oneOf(ACTOR_TYPES)),
  name: field(name(255), { required: true }),
  label: field(labelMap, { nullable: true }),
  alternative_names: field(nameList, { nullable: true }),
  variants: field(nameList, { nullable: true }),
  abbreviations: field(nameList, { nullable: true }),
  date_start: field(partialDate, { nullable: true }),
  date_end: field(partialDate, { nullable: true }),
  comment: field(text(65_535, 0), { nullable: true }),
  gnd: field(gndId, { nullable: true }),
  sikart: field(sikartId, { nullable: true }),
};
export type ActorInput = FieldValues<typeof ACTOR_FIELDS>;

/** Keys a body may carry without effect: server-set and derived fields (a GET result sent back). */
const ACTOR_READ_ONLY = [...READ_ONLY, ...DERIVED_FIELDS];

export const ACTOR_LIST: ListOptions<'id' | 'name' | 'type' | 'date_start' | 'date_end' | 'created_at' | 'updated_at'> = {
  sortFields: ['id', 'name', 'type', 'date_start', 'date_end', 'created_at', 'updated_at'],
  formats: ['json', 'select2', 'beacon'],
};

const COLUMNS = [
  'id',
  'type',
  'name',
  'label',
  'alternative_names',
  'variants',
  'abbreviations',
  'date_start',
  'date_end',
  'comment',
  'gnd',
  'sikart',
  'created_at',
  'updated_at',
] as const;

type ActorRow = Record<(typeof COLUMNS)[number], unknown>;

const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function toActor(row: ActorRow): Actor {
  return {
    id: Number(row.id),
    type: row.type as ActorType,
    name: String(row.name),
    label: parseJsonColumn(row.label, isStringRecord),
    alternative_names: parseJsonColumn(row.alternative_names, isStringArray),
    variants: parseJsonColumn(row.variants, isStringArray),
    abbreviations: parseJsonColumn(row.abbreviations, isStringArray),
    date_start: textOrNull(row.date_start),
    date_end: textOrNull(row.date_end),
    comment: textOrNull(row.comment),
    gnd: textOrNull(row.gnd),
    sikart: textOrNull(row.sikart),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}

/** Our checks after Anton's fields are mapped; the problems of both in one answer. */
function readActor(input: unknown, mode: 'create' | 'update'): Read<ActorInput> {
  const mapped = mapAntonActor(input, mode);
  const r = readFields(mapped ? mapped.input : input, ACTOR_FIELDS, mode, ACTOR_READ_ONLY);
  const errors = { ...(r.ok ? {} : r.errors), ...mapped?.errors };
  return Object.keys(errors).length > 0 ? { ok: false, errors } : r;
}

/** Checks an actor as given for creation (required fields, defaults applied by the caller). */
export function checkActorCreate(input: unknown): Read<ActorInput> {
  const r = readActor(input, 'create');
  if (!r.ok) return r;
  return crossCheck(r.values);
}

function crossCheck(v: ActorInput): Read<ActorInput> {
  if (v.date_start && v.date_end && dateBefore(v.date_end, v.date_start)) {
    return { ok: false, errors: { date_end: 'must not be before date_start' } };
  }
  return { ok: true, values: v };
}

/** The columns of a checked actor; only the fields present in `v` (an update touches no others). */
function columnsOf(v: ActorInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (v.type !== undefined) out.type = v.type;
  if (v.name !== undefined && v.name !== null) {
    out.name = v.name;
    out.name_lower = v.name.toLowerCase();
  }
  for (const key of ['label', 'alternative_names', 'variants', 'abbreviations'] as const) {
    if (v[key] !== undefined) out[key] = jsonColumn(v[key]);
  }
  for (const key of ['date_start', 'date_end', 'comment', 'gnd', 'sikart'] as const) {
    if (v[key] !== undefined) out[key] = v[key];
  }
  return out;
}

/** Inserts a checked actor; used by createActor and by `catalog load` inside its transaction. */
export async function insertActor(trx: Knex, v: ActorInput, at: Date): Promise<number> {
  const now = at.toISOString();
  const rows: unknown = await trx('actors')
    .insert({ type: 'person', ...columnsOf(v), created_at: now, updated_at: now })
    .returning('id');
  return insertedId(rows);
}

const ACTORS: RecordTable<Actor> = { table: 'actors', what: 'actor', columns: COLUMNS, toRecord: toActor };

export function getActor(ctx: Ctx, id: number): Promise<Actor> {
  return getRecord(ctx, ACTORS, id);
}

export function createActor(ctx: Ctx, input: unknown): Promise<Actor> {
  return createRecord(ctx, ACTORS, checkActorCreate(input), insertActor);
}

/** PUT: changes the fields given, leaves the others; null clears an optional field. */
export async function updateActor(ctx: Ctx, id: number, input: unknown): Promise<Actor> {
  const r = readActor(input, 'update');
  if (!r.ok) throw invalid('validation failed', r.errors);
  const v = r.values;
  // The date order is a property of the merged record, not of the request alone.
  return updateRecord(
    ctx,
    ACTORS,
    id,
    (current) => {
      const name = v.name === undefined ? nameFollowsLabel(current, v.label) : undefined;
      return columnsOf(name === undefined ? v : { ...v, name });
    },
    (current) =>
      crossCheck({
        date_start: v.date_start === undefined ? current.date_start : v.date_start,
        date_end: v.date_end === undefined ? current.date_end : v.date_end,
      }),
  );
}

/** What GET /api/actors narrows the list (and the BEACON dump) to, besides `search`. */
export interface ActorFilter {
  /** Anton's `authority_type`: one type, or null for all. */
  type: AuthorityCode | null;
}

const NO_FILTER: ActorFilter = { type: null };

/** GET /api/actors: `search` is a case-insensitive substring of the name. */
export async function listActors(ctx: Ctx, q: ListQuery, filter: ActorFilter = NO_FILTER): Promise<ListResult<Actor>> {
  const filtered = () => {
    let b = ctx.db('actors');
    if (filter.type !== null) b = b.where('type', filter.type);
    return q.search === null ? b : whereLike(b, 'name_lower', q.search);
  };
  // Names sort case-insensitively on both dialects (PostgreSQL's collation and SQLite's
  // binary order differ on `name`).
  const sortColumn = q.sortField === 'name' ? 'name_lower' : q.sortField;
  const { rows, total } = await pageOf<ActorRow>(filtered, q, sortColumn, COLUMNS);
  return { data: rows.map(toActor), meta: { page: q.page, perPage: q.perPage, total } };
}

export const ACTOR_BEACON_PROVIDERS = ['gnd', 'sikart'] as const;
export type ActorBeaconProvider = (typeof ACTOR_BEACON_PROVIDERS)[number];

/** BEACON of every actor with an id of the provider (no paging or search: a link dump is the whole set). */
export function actorsBeacon(ctx: Ctx, provider: ActorBeaconProvider, baseUrl: string, filter: ActorFilter = NO_FILTER): Promise<BeaconDump> {
  return beaconDump(ctx.db, {
    table: 'actors',
    provider,
    header: { name: 'archivectl actors', target: `${baseUrl}/api/actors/{ID}` },
    ...(filter.type === null ? {} : { where: (b: Knex.QueryBuilder) => b.where('type', filter.type) }),
  });
}
