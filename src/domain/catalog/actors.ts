// Actors: persons and organisations (SPEC §4.4). POST creates, PUT changes the fields given.
import { invalid } from '../../errors.js';
import type { Ctx } from '../context.js';
import { createRecord, getRecord, updateRecord, type RecordTable } from './records.js';
import {
  dateBefore,
  field,
  gndId,
  insertedId,
  isStringArray,
  isStringRecord,
  jsonColumn,
  labelMap,
  name,
  nameList,
  oneOf,
  parseJsonColumn,
  partialDate,
  readFields,
  text,
  type FieldValues,
  type Read,
} from './fields.js';
import { PROVIDERS, renderBeacon, type BeaconLink, type BeaconProvider } from './formats.js';
import { pageOf, whereLike, type ListOptions, type ListQuery, type ListResult } from './list.js';
import type { Knex } from 'knex';

export const ACTOR_TYPES = ['person', 'family', 'corporate_body', 'organisational_unit', 'group', 'software'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface Actor {
  id: number;
  type: ActorType;
  name: string;
  label: Record<string, string> | null;
  alternative_names: string[] | null;
  date_start: string | null;
  date_end: string | null;
  comment: string | null;
  gnd: string | null;
  created_at: string;
  updated_at: string;
}

export const ACTOR_FIELDS = {
  type: field(oneOf(ACTOR_TYPES)),
  name: field(name(255), { required: true }),
  label: field(labelMap, { nullable: true }),
  alternative_names: field(nameList, { nullable: true }),
  date_start: field(partialDate, { nullable: true }),
  date_end: field(partialDate, { nullable: true }),
  comment: field(text(65_535, 0), { nullable: true }),
  gnd: field(gndId, { nullable: true }),
};
export type ActorInput = FieldValues<typeof ACTOR_FIELDS>;

export const ACTOR_LIST: ListOptions<'id' | 'name' | 'type' | 'date_start' | 'date_end' | 'created_at' | 'updated_at'> = {
  sortFields: ['id', 'name', 'type', 'date_start', 'date_end', 'created_at', 'updated_at'],
  formats: ['json', 'select2', 'beacon'],
};

const COLUMNS = ['id', 'type', 'name', 'label', 'alternative_names', 'date_start', 'date_end', 'comment', 'gnd', 'created_at', 'updated_at'] as const;

type ActorRow = Record<(typeof COLUMNS)[number], unknown>;

function toActor(row: ActorRow): Actor {
  return {
    id: Number(row.id),
    type: row.type as ActorType,
    name: String(row.name),
    label: parseJsonColumn(row.label, isStringRecord),
    alternative_names: parseJsonColumn(row.alternative_names, isStringArray),
    date_start: (row.date_start as string | null) ?? null,
    date_end: (row.date_end as string | null) ?? null,
    comment: (row.comment as string | null) ?? null,
    gnd: (row.gnd as string | null) ?? null,
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}

/** Checks an actor as given for creation (required fields, defaults applied by the caller). */
export function checkActorCreate(input: unknown): Read<ActorInput> {
  const r = readFields(input, ACTOR_FIELDS, 'create');
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
  if (v.label !== undefined) out.label = jsonColumn(v.label);
  if (v.alternative_names !== undefined) out.alternative_names = jsonColumn(v.alternative_names);
  if (v.date_start !== undefined) out.date_start = v.date_start;
  if (v.date_end !== undefined) out.date_end = v.date_end;
  if (v.comment !== undefined) out.comment = v.comment;
  if (v.gnd !== undefined) out.gnd = v.gnd;
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
  const r = readFields(input, ACTOR_FIELDS, 'update');
  if (!r.ok) throw invalid('validation failed', r.errors);
  const v = r.values;
  // The date order is a property of the merged record, not of the request alone.
  return updateRecord(ctx, ACTORS, id, columnsOf(v), (current) =>
    crossCheck({
      date_start: v.date_start === undefined ? current.date_start : v.date_start,
      date_end: v.date_end === undefined ? current.date_end : v.date_end,
    }),
  );
}

/** GET /api/actors: `search` is a case-insensitive substring of the name. */
export async function listActors(ctx: Ctx, q: ListQuery): Promise<ListResult<Actor>> {
  const filtered = () => {
    const b = ctx.db('actors');
    return q.search === null ? b : whereLike(b, 'name_lower', q.search);
  };
  // Names sort case-insensitively on both dialects (PostgreSQL's collation and SQLite's
  // binary order differ on `name`).
  const sortColumn = q.sortField === 'name' ? 'name_lower' : q.sortField;
  const { rows, total } = await pageOf<ActorRow>(filtered, q, sortColumn, COLUMNS);
  return { data: rows.map(toActor), meta: { page: q.page, perPage: q.perPage, total } };
}

export const ACTOR_BEACON_PROVIDERS = ['gnd'] as const;

/** BEACON of every actor with a GND id (no paging or search: a link dump is the whole set). */
export async function actorsBeacon(ctx: Ctx, provider: Extract<BeaconProvider, 'gnd'>, baseUrl: string): Promise<string> {
  const column = PROVIDERS[provider].column;
  const rows = (await ctx.db('actors')
    .whereNotNull(column)
    .select('id', 'name', `${column} as source`)
    .orderBy('id')) as { id: number; name: string; source: string }[];
  const links: BeaconLink[] = rows.map((r) => ({ source: r.source, id: Number(r.id), annotation: r.name }));
  return renderBeacon(
    { provider, name: 'archivectl actors', target: `${baseUrl}/api/actors/{ID}`, timestamp: ctx.clock.now() },
    links,
  );
}
