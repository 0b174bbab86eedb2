// Query parameters as valibot schemas. A parameter is a string or, repeated (`?page=1&page=2`),
// an array: a repeated one is refused rather than guessed at, and an empty value counts as
// absent, as an empty form field does.
import { v } from '../../../validation.js';

export type QueryInput = Record<string, string | string[] | undefined>;

const text = v.optional(
  v.pipe(
    v.union([v.string(), v.array(v.string())]),
    v.check((x) => !Array.isArray(x), 'must be given once'),
    v.transform((x) => (x === '' ? undefined : (x as string))),
  ),
  '',
);

/** Reads a present value with `inner` (its first message on failure), an absent one as `absent`. */
function readWith<S extends v.GenericSchema<string, unknown>, A>(inner: S, absent: A) {
  return v.rawTransform<string | undefined, v.InferOutput<S> | A>(({ dataset, addIssue, NEVER }) => {
    if (dataset.value === undefined) return absent;
    const r = v.safeParse(inner, dataset.value);
    if (r.success) return r.output;
    addIssue({ message: r.issues[0].message });
    return NEVER;
  });
}

/** One parameter read by `inner`, or `fallback` when absent or empty. */
export function param<S extends v.GenericSchema<string, unknown>>(inner: S, fallback: v.InferOutput<S>) {
  // The description of the API (src/http/openapi/) reads the parameter's own schema from here.
  return v.pipe(text, readWith(inner, fallback), v.metadata({ parameter: inner, default: fallback }));
}

/** One parameter that may be absent (undefined), read by `inner` when present. */
export function optionalParam<S extends v.GenericSchema<string, unknown>>(inner: S) {
  return v.pipe(text, readWith(inner, undefined), v.metadata({ parameter: inner }));
}

/** Text of at most `max` characters, counted as JSON Schema's maxLength counts them (code points). */
export function shortText(max = 255) {
  const message = `must be at most ${max} characters`;
  return v.pipe(
    v.string(),
    v.check((s) => [...s.slice(0, 4 * max)].length <= max, message),
    v.metadata({ maxLength: max }),
  );
}

/** Digits only, from `min` to `max`: no signs, exponents, decimals or hex that Number() would take. */
export function wholeNumber(min: number, max: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,10}$/, message),
    v.transform(Number),
    v.minValue(min, message),
    v.maxValue(max, message),
    v.metadata({ type: 'integer', minimum: min, maximum: max }),
  );
}
