// Places (docs/http-api.md; resources/place.ts), in our shape or as Anton's PlaceInput (anton/input.ts).
import type { Ctx } from '../context.js';
import { followingLabel, mapAntonPlace, withAntonFields } from './anton/input.js';
import type { DumpRequest } from './list/beacon-dump.js';
import { readRecord, type FieldValues, type Read } from './record-schema.js';
import { createRecord, updateRecord } from './records.js';
import { PLACE_BEACON_PROVIDERS } from './resources/place.js';
import { PLACE, type Place } from './resources/index.js';

export { PLACE_BEACON_PROVIDERS, type Place } from './resources/place.js';

export type PlaceInput = FieldValues<typeof PLACE.fields>;
export type PlaceBeaconProvider = (typeof PLACE_BEACON_PROVIDERS)[number];

/** Our checks after Anton's fields are mapped; the problems of both in one answer. */
function readPlace(input: unknown, mode: 'create' | 'update'): Read<PlaceInput> {
  return withAntonFields(mapAntonPlace(input, mode), input, (body) => readRecord(PLACE.input[mode], body));
}

export function checkPlaceCreate(input: unknown): Read<PlaceInput> {
  return readPlace(input, 'create');
}

export function createPlace(ctx: Ctx, input: unknown): Promise<Place> {
  return createRecord(ctx, PLACE, checkPlaceCreate(input));
}

/** POST /api/places/{id}: changes the fields given, leaves the others; null clears an optional field. */
export function updatePlace(ctx: Ctx, id: number, input: unknown): Promise<Place> {
  return updateRecord(ctx, PLACE, id, readPlace(input, 'update'), followingLabel);
}

/** BEACON of every place with an id of the provider (GND, GeoNames or Wikipedia); the whole set, unpaged. */
export function placesBeacon(provider: PlaceBeaconProvider, baseUrl: string): DumpRequest {
  return { source: PLACE, provider, baseUrl };
}
