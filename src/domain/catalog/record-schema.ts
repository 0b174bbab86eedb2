// A resource's input as one valibot schema from its field table: only the table's keys are read (no
// `__proto__`), other keys are "unknown field", and every problem is reported at once.
import { issueMap, MAX_UNKNOWN, shownFieldName, v } from '../../validation.js';
import { isPlainObject } from './json-values.js';

/** A value schema: any input, a typed output, messages as the API words them (fields.ts). */
export type ValueSchema<T = unknown> = v.GenericSchema<unknown, T>;

export interface FieldSpec<T = unknown> {
  schema: ValueSchema<T>;
  /** Must be present (and not null) when creating. */
  required?: boolean;
  /** May be null (clears the field). */
  nullable?: boolean;
}

export type FieldSpecs = Record<string, FieldSpec>;

/** The checked values of a body: the fields it gave (null clears a nullable one). */
export type FieldValues<S extends FieldSpecs> = {
  [K in keyof S]?: S[K] extends FieldSpec<infer T> ? T | null : never;
};

export const field = <T>(schema: ValueSchema<T>, options: Omit<FieldSpec<T>, 'schema'> = {}): FieldSpec<T> => ({
  schema,
  ...options,
});

export type Mode = 'create' | 'update';

/** Server-set fields a client may send back unchanged (a GET result PUT back as is): ignored, not refused. */
export const READ_ONLY: readonly string[] = ['id', 'created_at', 'updated_at'];

/** Anton's derived fields (anton/fields.ts) on actors and places: sent back, ignored like `id`. */
export const DERIVED_FIELDS: readonly string[] = ['full_id', 'fullname', 'authority_type', 'country'];

export type Read<T> = { ok: true; values: T } | { ok: false; errors: Record<string, string> };

/** One entry: null is a value only where the field is nullable; elsewhere it counts as missing (required) or wrong. */
function entrySchema(spec: FieldSpec, mode: Mode): v.GenericSchema {
  const value = spec.nullable
    ? v.nullable(spec.schema)
    : v.pipe(
        v.custom<unknown>((x) => x !== null, spec.required ? 'required' : 'must not be null'),
        spec.schema,
      );
  return mode === 'create' && spec.required ? value : v.optional(value);
}

/** Reports the keys the table does not know; a few, with bounded names: a message must not echo the body. */
function unknownKeys(specs: FieldSpecs, readOnly: readonly string[]) {
  return v.rawCheck<Record<string, unknown>>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    const unknown = Object.keys(input).filter((key) => !Object.hasOwn(specs, key) && !readOnly.includes(key));
    for (const key of unknown.slice(0, MAX_UNKNOWN)) {
      addIssue({
        message: 'unknown field',
        path: [{ type: 'object', origin: 'value', input, key: shownFieldName(key), value: input[key] }],
      });
    }
  });
}

/** The known keys that are present (an undefined value counts as absent), in a null-prototype copy. */
function knownKeys(specs: FieldSpecs) {
  return v.transform((input: Record<string, unknown>) => {
    const out = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(specs))
      if (Object.hasOwn(input, key) && input[key] !== undefined) out[key] = input[key];
    return out;
  });
}

/** Unknown keys and fields are checked side by side (an intersection), so all are reported. */
export function recordSchema<S extends FieldSpecs>(
  specs: S,
  mode: Mode,
  readOnly: readonly string[] = READ_ONLY,
): v.GenericSchema<unknown, FieldValues<S>> {
  const entries = Object.fromEntries(Object.entries(specs).map(([key, spec]) => [key, entrySchema(spec, mode)]));
  const body = v.custom<Record<string, unknown>>(isPlainObject, 'must be a JSON object');
  return v.pipe(
    body,
    v.intersect([
      v.pipe(
        body,
        unknownKeys(specs, readOnly),
        v.transform(() => ({})),
      ),
      // The object's own message speaks only for a missing required entry: the input is an object.
      v.pipe(body, knownKeys(specs), v.object(entries, 'required')),
    ]),
  ) as unknown as v.GenericSchema<unknown, FieldValues<S>>;
}

/** A body through a record schema: its values, or the error map (a body that is no object is `body`). */
export function readRecord<T>(schema: v.GenericSchema<unknown, T>, input: unknown): Read<T> {
  const r = v.safeParse(schema, input);
  return r.success ? { ok: true, values: r.output } : { ok: false, errors: issueMap(r.issues, 'body') };
}

/** A field table applied to one body (builds the schema each time: for tables used once). */
export function readFields<S extends FieldSpecs>(
  input: unknown,
  specs: S,
  mode: Mode,
  readOnly: readonly string[] = READ_ONLY,
): Read<FieldValues<S>> {
  return readRecord(recordSchema(specs, mode, readOnly), input);
}
