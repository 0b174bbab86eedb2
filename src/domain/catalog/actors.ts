// Actors (SPEC §4.4; described in resources/actor.ts). POST creates, PUT changes the fields
// given. Anton's ActorInput is accepted beside our shape (anton-input.ts).
import type { Knex } from 'knex';
import { invalid } from '../../errors.js';
import type { Ctx } from '../context.js';
import type { AuthorityCode } from './anton/fields.js';
import { followingLabel, mapAntonActor, withAntonFields } from './anton/input.js';
import type { DumpRequest } from './list/beacon-dump.js';
import { dateBefore } from './fields.js';
import type { ListQuery, ListResult } from './list/query.js';
import { listRecords } from './list/records.js';
import { readRecord, type FieldValues, type Read } from './record-schema.js';
import { createRecord, getRecord, insertRecord, updateRecord } from './records.js';
import { ACTOR_BEACON_PROVIDERS } from './resources/actor.js';
import { ACTOR, type Actor } from './resources/index.js';

export { ACTOR_BEACON_PROVIDERS, ACTOR_TYPES, type Actor, type ActorType } from './resources/actor.js';

export type ActorInput = FieldValues<typeof ACTOR.fields>;
export const ACTOR_LIST = ACTOR.listOptions;
export type ActorBeaconProvider = (typeof ACTOR_BEACON_PROVIDERS)[number];

/** Our checks after Anton's fields are mapped; the problems of both in one answer. */
function readActor(input: unknown, mode: 'create' | 'update'): Read<ActorInput> {
  return withAntonFields(mapAntonActor(input, mode), input, (body) => readRecord(ACTOR.input[mode], body));
}

/** The date order: a property of the record as a whole. */
function crossCheck(v: ActorInput): Read<ActorInput> {
  if (v.date_start && v.date_end && dateBefore(v.date_end, v.date_start)) {
    return { ok: false, errors: { date_end: 'must not be before date_start' } };
  }
  return { ok: true, values: v };
}

/** Checks an actor as given for creation (required fields; the type defaults when stored). */
export function checkActorCreate(input: unknown): Read<ActorInput> {
  const r = readActor(input, 'create');
  return r.ok ? crossCheck(r.values) : r;
}

/** Inserts a checked actor; used by createActor and by `catalog load` inside its transaction. */
export function insertActor(trx: Knex, v: ActorInput, at: Date): Promise<number> {
  return insertRecord(trx, ACTOR, v, at);
}

export function getActor(ctx: Ctx, id: number): Promise<Actor> {
  return getRecord(ctx, ACTOR, id);
}

export function createActor(ctx: Ctx, input: unknown): Promise<Actor> {
  return createRecord(ctx, ACTOR, checkActorCreate(input));
}

/** PUT: changes the fields given, leaves the others; null clears an optional field. */
export async function updateActor(ctx: Ctx, id: number, input: unknown): Promise<Actor> {
  const r = readActor(input, 'update');
  if (!r.ok) throw invalid('validation failed', r.errors);
  const v = r.values;
  // The date order is a property of the merged record, not of the request alone.
  return updateRecord(
    ctx,
    ACTOR,
    id,
    (current) => followingLabel(current, v),
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

/** The narrowing of a filter; none without one (the list's total then comes from the counter). */
const narrowed = (filter: ActorFilter) =>
  filter.type === null ? undefined : (b: Knex.QueryBuilder) => b.where('type', filter.type);

/** GET /api/actors: `search` is a case-insensitive substring of the name. */
export function listActors(ctx: Ctx, q: ListQuery, filter: ActorFilter = NO_FILTER): Promise<ListResult<Actor>> {
  return listRecords(ctx, ACTOR, q, filter.type === null ? undefined : { type: filter.type });
}

/** BEACON of every actor with an id of the provider (no paging or search: a link dump is the whole set). */
export function actorsBeacon(
  provider: ActorBeaconProvider,
  baseUrl: string,
  filter: ActorFilter = NO_FILTER,
): DumpRequest {
  const narrow = narrowed(filter);
  return {
    source: ACTOR,
    provider,
    baseUrl,
    ...(narrow ? { narrow: { key: `type=${filter.type}`, apply: narrow } } : {}),
  };
}
