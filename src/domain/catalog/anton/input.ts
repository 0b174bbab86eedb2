// Anton's request shapes (ActorInput, PlaceInput; docs/archive-tools.md, "Anton clients"), mapped onto ours
// before the usual checks: what cannot be honoured is a 422 naming the field, and two names of a field must agree.
import { COUNTRY_CODES, isPlainObject, labelName, partialDate } from '../fields.js';
import { AUTHORITY_TYPES, TYPE_ID_TEXT, typeOfTypeId } from './fields.js';
import type { Read } from '../record-schema.js';

/** A body with Anton's fields replaced by ours, and what could not be mapped. */
export interface Mapped {
  input: Record<string, unknown>;
  errors: Record<string, string>;
}

const has = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k) && o[k] !== undefined;

/** A copy of the body without the given keys (null prototype: no key reaches a prototype). */
function without(body: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(body)) if (!keys.includes(k)) out[k] = body[k];
  return out;
}

/** Reads the mapped body (null: not an object; `read` refuses it), with the mapping's problems. */
export function withAntonFields<T>(mapped: Mapped | null, input: unknown, read: (body: unknown) => Read<T>): Read<T> {
  const r = read(mapped ? mapped.input : input);
  const errors = { ...(r.ok ? {} : r.errors), ...mapped?.errors };
  return Object.keys(errors).length > 0 ? { ok: false, errors } : r;
}

/** Anton's dates: ours (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`) or Swiss numeric `D.M.YYYY`, `M.YYYY`. */
export function antonDate(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  // D.M.YYYY or M.YYYY (a space allowed after each dot) as YYYY-MM-DD or YYYY-MM.
  const dmy = /^(?:(\d{1,2})\.\s?)?(\d{1,2})\.\s?(\d{4})$/.exec(s);
  const iso = dmy ? [dmy[3], dmy[2], dmy[1]].flatMap((n) => n?.padStart(2, '0') ?? []).join('-') : s;
  const r = partialDate(iso);
  return r.ok ? r.value : undefined;
}

/** Maps `antonKey` onto `ourKey` through `convert` (undefined: `message`), null kept; both given must agree. */
function mapField(
  body: Record<string, unknown>,
  out: Mapped,
  antonKey: string,
  ourKey: string,
  convert: (v: unknown) => unknown,
  message: string,
  same: (a: unknown, b: unknown) => boolean = (a, b) => a === b,
): void {
  if (!has(body, antonKey)) return;
  const raw = body[antonKey];
  const value = raw === null ? null : convert(raw);
  if (value === undefined) out.errors[antonKey] = message;
  else if (!has(body, ourKey)) out.input[ourKey] = value;
  else if (!same(value, body[ourKey])) out.errors[antonKey] = `disagrees with ${ourKey}; give one of them`;
}

/** `name` from `label` when the body has none (create; a change applies nameFollowsLabel). */
function nameFromLabel(body: Record<string, unknown>, out: Mapped, mode: 'create' | 'update'): void {
  if (mode !== 'create' || has(body, 'name')) return;
  const derived = labelName(body.label);
  if (derived !== undefined) out.input.name = derived;
}

export const ACTOR_ANTON_KEYS = ['type_id', 'anton_date_start', 'anton_date_end', 'private'] as const;

/** Date values compare after normalisation: `1900-01` and ` 1900-01 ` are one date. */
const sameDate = (a: unknown, b: unknown) => a === (antonDate(b) ?? b);

export function mapAntonActor(body: unknown, mode: 'create' | 'update'): Mapped | null {
  if (!isPlainObject(body)) return null;
  const out: Mapped = { input: without(body, ACTOR_ANTON_KEYS), errors: Object.create(null) as Record<string, string> };
  if (has(body, 'type_id') && body.type_id === null) out.errors.type_id = `must be one of ${TYPE_ID_TEXT}`;
  else mapField(body, out, 'type_id', 'type', typeOfTypeId, `must be one of ${TYPE_ID_TEXT}`);
  const dateText = 'must be a date YYYY, YYYY-MM, YYYY-MM-DD, D.M.YYYY or M.YYYY';
  mapField(body, out, 'anton_date_start', 'date_start', antonDate, dateText, sameDate);
  mapField(body, out, 'anton_date_end', 'date_end', antonDate, dateText, sameDate);
  const p = body.private;
  if (p === true || p === 'true' || p === '1' || p === 1)
    out.errors.private =
      'private records are not supported: an actor is visible to whoever may read actors (see the access rules); send false or leave it out';
  else if (has(body, 'private') && !(p === false || p === null || p === 'false' || p === '0' || p === 0))
    out.errors.private = 'must be true or false';
  nameFromLabel(body, out, mode);
  return out;
}

export const PLACE_ANTON_KEYS = ['type_id', 'country_code_id'] as const;

/** D.M.YYYY or M.YYYY, described with each month's days (as PARTIAL_DATE's description). */
const ANTON_DATE =
  '^((0?[1-9]|1[0-9]|2[0-9])\\. ?(0?[1-9]|1[0-2])|30\\. ?(0?[13-9]|1[0-2])|31\\. ?(0?[13578]|1[02])|(0?[1-9]|1[0-2]))\\. ?[0-9]{4}$';

/** Anton's fields as the served description states them (JSON Schema): what the mappings above accept. */
export const ANTON_INPUT: Record<'actors' | 'places', Record<string, Record<string, unknown>>> = {
  actors: {
    type_id: {
      enum: AUTHORITY_TYPES.map((t) => t.id),
      type: 'integer',
      description: `Anton's \`type\`: ${TYPE_ID_TEXT}`,
    },
    anton_date_start: {
      type: ['string', 'null'],
      pattern: ANTON_DATE,
      description: "Anton's `date_start`: D.M.YYYY or M.YYYY (ours are accepted too)",
    },
    anton_date_end: {
      type: ['string', 'null'],
      pattern: ANTON_DATE,
      description: "Anton's `date_end`: D.M.YYYY or M.YYYY (ours are accepted too)",
    },
    private: { enum: [false, null], type: ['boolean', 'null'], description: 'only false: no record is private' },
  },
  places: {
    type_id: { type: 'null', description: "Anton's place type: not kept, only null is accepted" },
    country_code_id: {
      enum: [...COUNTRY_CODES, null],
      type: ['string', 'null'],
      description: "Anton's `country_code` (an assigned ISO 3166-1 alpha-2 code; lowercase is accepted too)",
    },
  },
};

/** Pairs of names of one field: a described body gives one of them. */
export const ANTON_SAME_FIELD: Record<'actors' | 'places', [string, string][]> = {
  actors: [
    ['type_id', 'type'],
    ['anton_date_start', 'date_start'],
    ['anton_date_end', 'date_end'],
  ],
  places: [['country_code_id', 'country_code']],
};

const countryCodeOf = (v: unknown) =>
  typeof v === 'string' && /^[A-Za-z]{2}$/.test(v.trim()) ? v.trim().toUpperCase() : undefined;
const COUNTRY_CODE_TEXT = 'must be an ISO 3166-1 alpha-2 country code such as CH';

export function mapAntonPlace(body: unknown, mode: 'create' | 'update'): Mapped | null {
  if (!isPlainObject(body)) return null;
  const out: Mapped = { input: without(body, PLACE_ANTON_KEYS), errors: Object.create(null) as Record<string, string> };
  mapField(body, out, 'country_code_id', 'country_code', countryCodeOf, COUNTRY_CODE_TEXT);
  if (has(body, 'type_id') && body.type_id !== null)
    out.errors.type_id =
      "place types are not kept by this API (Anton's type ids are terms of each installation's own valuelist); send null or leave it out";
  nameFromLabel(body, out, mode);
  return out;
}

/** On a change giving `label` but no `name`: the new name when the stored name followed the stored label. */
export function nameFollowsLabel(
  current: { name: string; label: Record<string, string> | null },
  newLabel: Record<string, string> | null | undefined,
): string | undefined {
  if (!newLabel) return undefined;
  const was = labelName(current.label);
  if (was === undefined || was.trim() !== current.name) return undefined;
  const next = labelName(newLabel);
  return next === current.name ? undefined : next;
}

/** A change's values with the name that follows a new label (nameFollowsLabel) when it gives no name. */
export function followingLabel<V extends { name?: string | null; label?: Record<string, string> | null }>(
  current: { name: string; label: Record<string, string> | null },
  values: V,
): V {
  const name = values.name === undefined ? nameFollowsLabel(current, values.label) : undefined;
  return name === undefined ? values : { ...values, name };
}
