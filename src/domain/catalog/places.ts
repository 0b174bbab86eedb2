// Places (SPEC §4.4). POST /api/places creates; POST /api/places/{id} changes the fields given.
// Anton's PlaceInput is accepted beside our shape (anton-input.ts).
import { invalid } from '../../errors.js';
import type { Ctx } from '../context.js';
import { createRecord, getRecord, updateRecord, type RecordTable } from './records.js';
import { countryCode, field, geonamesId, gndId, isStringArray, isStringRecord, jsonColumn, labelMap, location, name, nameList, parseJsonColumn, READ_ONLY, readFields, text, wikipediaUrl, type FieldValues, type Read } from './fields.js';
import { DERIVED_FIELDS } from './anton-fields.js';
import { mapAntonPlace, nameFollowsLabel } from './anton-input.js';
import { beaconDump, type BeaconDump } from './beacon.js';
import { pageOf, whereLike, type ListOptions, type ListQuery, type ListResult } from './list.js';
import type { Knex } from 'knex';
import { insertedId } from '../../db/row-id.js';

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
  variants: string[] | null;
  abbreviations: string[] | null;
  comment: string | null;
  gnd: string | null;
  geonames: string | null;
  wikipedia: string | null;
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
  variants: field(nameList, { nullable: true }),
  abbreviations: field(nameList, { nullable: true }),
  comment: field(text(65_535, 0), { nullable: true }),
  gnd: field(gndId, { nullable: true }),
  geonames: field(geonamesId, { nullable: true }),
  wikipedia: field(wikipediaUrl, { nullable: true }),
};

/** Keys a body may carry without effect: server-set and derived fields (a GET result sent back). */
const PLACE_READ_ONLY = [...READ_ONLY, ...DERIVED_FIELDS];
export type PlaceInput = FieldValues<typeof PLACE_FIELDS>;

export const PLACE_LIST: ListOptions<'id' | 'name' | 'city' | 'state' | 'country_code' | 'created_at' | 'updated_at'> = {
  sortFields: ['id', 'name', 'city', 'state', 'country_code', 'created_at', 'updated_at'],
  formats: ['json', 'select2', 'beacon'],
};

export const PLACE_BEACON_PROVIDERS = ['gnd', 'geonames', 'wikipedia'] as const;
export type PlaceBeaconProvider = (typeof PLACE_BEACON_PROVIDERS)[number];

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
  'variants',
  'abbreviations',
  'comment',
  'gnd',
  'geonames',
  'wikipedia',
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
    variants: parseJsonColumn(row.variants, isStringArray),
    abbreviations: parseJsonColumn(row.abbreviations, isStringArray),
    comment: textOrNull(row.comment),
    gnd: textOrNull(row.gnd),
    geonames: textOrNull(row.geonames),
    wikipedia: textOrNull(row.wikipedia),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}

/** Our checks after Anton's fields are mapped; the problems of both in one answer. */
function readPlace(input: unknown, mode: 'create' | 'update'): Read<PlaceInput> {
  const mapped = mapAntonPlace(input, mode);
  const r = readFields(mapped ? mapped.input : input, PLACE_FIELDS, mode, PLACE_READ_ONLY);
  const errors = { ...(r.ok ? {} : r.errors), ...mapped?.errors };
  return Object.keys(errors).length > 0 ? { ok: false, errors } : r;
}

export function checkPlaceCreate(input: unknown): Read<PlaceInput> {
  return readPlace(input, 'create');
}

function columnsOf(v: PlaceInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (v.name !== undefined && v.name !== null) {
    out.name = v.name;
    out.name_lower = v.name.toLowerCase();
  }
  for (const key of ['label', 'alternative_names', 'variants', 'abbreviations'] as const) {
    if (v[key] !== undefined) out[key] = jsonColumn(v[key]);
  }
  for (const key of ['city', 'state', 'address', 'country_code', 'location', 'comment', 'gnd', 'geonames', 'wikipedia'] as const) {
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
  const r = readPlace(input, 'update');
  if (!r.ok) throw invalid('validation failed', r.errors);
  const v = r.values;
  return updateRecord(ctx, PLACES, id, (current) => {
    const name = v.name === undefined ? nameFollowsLabel(current, v.label) : undefined;
    return columnsOf(name === undefined ? v : { ...v, name });
  });
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

/** BEACON of every place with an id of the provider (GND, GeoNames or Wikipedia); the whole set, unpaged. */
export function placesBeacon(ctx: Ctx, provider: PlaceBeaconProvider, baseUrl: string): Promise<BeaconDump> {
  return beaconDump(ctx.db, {
    table: 'places',
    provider,
    header: { name: 'archivectl places', target: `${baseUrl}/api/places/{ID}` },
  });
}
