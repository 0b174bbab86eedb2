// Places (SPEC §4.4). POST /api/places creates; POST /api/places/{id} changes the fields given.
import { invalid } from '../../errors.js';
import type { Ctx } from '../context.js';
import { createRecord, getRecord, updateRecord, type RecordTable } from './records.js';
import {
  countryCode,
  field,
  geonamesId,
  gndId,
  insertedId,
  isStringArray,
  isStringRecord,
  jsonColumn,
  labelMap,
  location,
  name,
  nameList,
  parseJsonColumn,
  readFields,
  text,
  type FieldValues,
  type Read,
} from './fields.js';
import { PROVIDERS, renderBeacon, type BeaconLink, type BeaconProvider } from './formats.js';
import { pageOf, whereLike, type ListOptions, type ListQuery, type ListResult } from './list.js';
import type { Knex } from 'knex';

export interface Place {
  id: number;
  name: string;
  label: Record<string, string> | null;
  city: string | null;
  state: string | null;
  address: string | null;
  country_code: string | null;
  location: string | null;
  alternative_names: string[] | null;
  comment: string | null;
  gnd: string | null;
  geonames: string | null;
  created_at: string;
  updated_at: string;
}

export const PLACE_FIELDS = {
  name: field(name(255), { required: true }),
  label: field(labelMap, { nullable: true }),
  city: field(name(255), { nullable: true }),
  state: field(name(255), { nullable: true }),
  address: field(text(512), { nullable: true }),
  country_code: field(countryCode, { nullable: true }),
  location: field(location, { nullable: true }),
  alternative_names: field(nameList, { nullable: true }),
  comment: field(text(65_535, 0), { nullable: true }),
  gnd: field(gndId, { nullable: true }),
  geonames: field(geonamesId, { nullable: true }),
};
export type PlaceInput = FieldValues<typeof PLACE_FIELDS>;

export const PLACE_LIST: ListOptions<'id' | 'name' | 'city' | 'state' | 'country_code' | 'created_at' | 'updated_at'> = {
  sortFields: ['id', 'name', 'city', 'state', 'country_code', 'created_at', 'updated_at'],
  formats: ['json', 'select2', 'beacon'],
};

export const PLACE_BEACON_PROVIDERS = ['gnd', 'geonames'] as const;

const COLUMNS = [
  'id',
  'name',
  'label',
  'city',
  'state',
  'address',
  'country_code',
  'location',
  'alternative_names',
  'comment',
  'gnd',
  'geonames',
  'created_at',
  'updated_at',
] as const;

type PlaceRow = Record<(typeof COLUMNS)[number], unknown>;

const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function toPlace(row: PlaceRow): Place {
  return {
    id: Number(row.id),
    name: String(row.name),
    label: parseJsonColumn(row.label, isStringRecord),
    city: textOrNull(row.city),
    state: textOrNull(row.state),
    address: textOrNull(row.address),
    country_code: textOrNull(row.country_code),
    location: textOrNull(row.location),
    alternative_names: parseJsonColumn(row.alternative_names, isStringArray),
    comment: textOrNull(row.comment),
    gnd: textOrNull(row.gnd),
    geonames: textOrNull(row.geonames),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}

export function checkPlaceCreate(input: unknown): Read<PlaceInput> {
  return readFields(input, PLACE_FIELDS, 'create');
}

function columnsOf(v: PlaceInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (v.name !== undefined && v.name !== null) {
    out.name = v.name;
    out.name_lower = v.name.toLowerCase();
  }
  if (v.label !== undefined) out.label = jsonColumn(v.label);
  if (v.alternative_names !== undefined) out.alternative_names = jsonColumn(v.alternative_names);
  for (const key of ['city', 'state', 'address', 'country_code', 'location', 'comment', 'gnd', 'geonames'] as const) {
    if (v[key] !== undefined) out[key] = v[key];
  }
  return out;
}

/** Inserts a checked place; used by createPlace and by `catalog load` inside its transaction. */
export async function insertPlace(trx: Knex, v: PlaceInput, at: Date): Promise<number> {
  const now = at.toISOString();
  const rows: unknown = await trx('places')
    .insert({ ...columnsOf(v), created_at: now, updated_at: now })
    .returning('id');
  return insertedId(rows);
}

const PLACES: RecordTable<Place> = { table: 'places', what: 'place', columns: COLUMNS, toRecord: toPlace };

export function getPlace(ctx: Ctx, id: number): Promise<Place> {
  return getRecord(ctx, PLACES, id);
}

export function createPlace(ctx: Ctx, input: unknown): Promise<Place> {
  return createRecord(ctx, PLACES, checkPlaceCreate(input), insertPlace);
}

/** POST /api/places/{id}: changes the fields given, leaves the others; null clears an optional field. */
export async function updatePlace(ctx: Ctx, id: number, input: unknown): Promise<Place> {
  const r = readFields(input, PLACE_FIELDS, 'update');
  if (!r.ok) throw invalid('validation failed', r.errors);
  return updateRecord(ctx, PLACES, id, columnsOf(r.values));
}

/** GET /api/places: `search` is a case-insensitive substring of the name. */
export async function listPlaces(ctx: Ctx, q: ListQuery): Promise<ListResult<Place>> {
  const filtered = () => {
    const b = ctx.db('places');
    return q.search === null ? b : whereLike(b, 'name_lower', q.search);
  };
  const sortColumn = q.sortField === 'name' ? 'name_lower' : q.sortField;
  const { rows, total } = await pageOf<PlaceRow>(filtered, q, sortColumn, COLUMNS);
  return { data: rows.map(toPlace), meta: { page: q.page, perPage: q.perPage, total } };
}

/** BEACON of every place with an id of the provider (GND or GeoNames); the whole set, unpaged. */
export async function placesBeacon(ctx: Ctx, provider: BeaconProvider, baseUrl: string): Promise<string> {
  const column = PROVIDERS[provider].column;
  const rows = (await ctx.db('places')
    .whereNotNull(column)
    .select('id', 'name', `${column} as source`)
    .orderBy('id')) as { id: number; name: string; source: string }[];
  const links: BeaconLink[] = rows.map((r) => ({ source: r.source, id: Number(r.id), annotation: r.name }));
  return renderBeacon(
    { provider, name: 'archivectl places', target: `${baseUrl}/api/places/{ID}`, timestamp: ctx.clock.now() },
    links,
  );
}
