// Actors (docs/http-api.md; resources/actor.ts), in our shape or as Anton's ActorInput (anton/input.ts).
import type { Knex } from 'knex';
import type { Ctx } from '../context.js';
import type { AuthorityCode } from './anton/fields.js';
import { followingLabel, mapAntonActor, withAntonFields } from './anton/input.js';
import type { DumpRequest } from './list/beacon-dump.js';
import { dateBefore } from './fields.js';
import type { ListQuery, ListResult } from './list/query.js';
import { listRecords } from './list/records.js';
import { readRecord, type FieldValues, type Read } from './record-schema.js';
import { createRecord, updateRecord } from './records.js';
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

/** The date order: a property of the record as a whole (on a change, of the merged record). */
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

export function createActor(ctx: Ctx, input: unknown): Promise<Actor> {
  return createRecord(ctx, ACTOR, checkActorCreate(input));
}

/** PUT: changes the fields given, leaves the others; null clears an optional field. */
export function updateActor(ctx: Ctx, id: number, input: unknown): Promise<Actor> {
  return updateRecord(ctx, ACTOR, id, readActor(input, 'update'), followingLabel, (current, v) =>
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

/** GET /api/actors: `search` is a case-insensitive substring of the name. */
export function listActors(ctx: Ctx, q: ListQuery, { type }: ActorFilter = { type: null }): Promise<ListResult<Actor>> {
  // No narrowing without a type: the list's total then comes from the counter.
  return listRecords(ctx, ACTOR, q, type === null ? undefined : { type });
}

/** BEACON of every actor with an id of the provider (no paging or search: a link dump is the whole set). */
export function actorsBeacon(
  provider: ActorBeaconProvider,
  baseUrl: string,
  { type }: ActorFilter = { type: null },
): DumpRequest {
  if (type === null) return { source: ACTOR, provider, baseUrl };
  const narrow = { key: `type=${type}`, apply: (b: Knex.QueryBuilder) => b.where('type', type) };
  return { source: ACTOR, provider, baseUrl, narrow };
}
