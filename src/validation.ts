// The one schema language of the project: valibot. Every input is described by a valibot schema,
// which also gives its TypeScript type and defaults. This module turns a failed parse into the
// project's errors: a map of dotted field paths to messages, one message a field (the first found).
import * as v from 'valibot';
import { invalid, type AppError } from './errors.js';

export { v };

/** One of the given words: the refusal lists them. */
export function oneOf<const T extends string>(choices: readonly T[]) {
  return v.picklist(choices as T[], `must be one of ${choices.join(', ')}`);
}

/** `{ "name": "required", "dates.birth": "must be a date" }`: the first issue of each field; an issue of the whole input goes under `whole`. */
export function issueMap(issues: readonly v.BaseIssue<unknown>[], whole = ''): Record<string, string> {
  // A Map, then own properties: a field named `__proto__` is reported, never reaches a prototype.
  const errors = new Map<string, string>();
  for (const issue of issues) {
    const key = v.getDotPath(issue) ?? whole;
    if (!errors.has(key)) errors.set(key, issue.message);
  }
  return Object.fromEntries(errors);
}

export type Parsed<S extends v.GenericSchema> =
  { ok: true; value: v.InferOutput<S> } | { ok: false; errors: Record<string, string> };

/** Unknown fields named in one refusal, and fields named in its message, at most. */
export const MAX_UNKNOWN = 10;

/** An unknown field's name as a refusal shows it: cut after 64 characters (it comes from the body). */
export const shownFieldName = (key: string): string => (key.length > 64 ? `${key.slice(0, 64)}…` : key);

/** The names among `keys` that `isKnown` refuses, as a refusal names them: the first MAX_UNKNOWN, cut. */
export function unknownFields(keys: Iterable<string>, isKnown: (key: string) => boolean): string[] {
  return [...keys]
    .filter((key) => !isKnown(key))
    .slice(0, MAX_UNKNOWN)
    .map(shownFieldName);
}

/**
 * An object whose keys must all be the schema's, so a misspelt optional field is never silently
 * dropped: the output, or a 422 naming every bad field and the unknown ones (unknownFields).
 */
export function parseKnownFields<S extends v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>>(
  schema: S,
  input: Record<string, unknown>,
  what: string,
): v.InferOutput<S> {
  const unknown = unknownFields(Object.keys(input), (key) => Object.hasOwn(schema.entries, key));
  const r = check(schema, input);
  if (r.ok && unknown.length === 0) return r.value;
  // Object.fromEntries defines own properties: a field named __proto__ is reported like any other.
  const problems = Object.fromEntries([
    ...unknown.map((key) => [key, 'unknown field']),
    ...(r.ok ? [] : Object.entries(r.errors)),
  ]) as Record<string, string>;
  throw refusal(what, problems);
}

/** The 422 of `what` with its problems by field; the message names the first MAX_UNKNOWN of them. */
export function refusal(what: string, problems: Record<string, string>): AppError {
  const names = Object.keys(problems);
  const shown = names.slice(0, MAX_UNKNOWN).join(', ');
  return invalid(`invalid ${what}: ${shown}${names.length > MAX_UNKNOWN ? ', …' : ''}`, problems);
}

/** Parses without throwing: the output, or the error map. */
export function check<S extends v.GenericSchema>(schema: S, input: unknown): Parsed<S> {
  const r = v.safeParse(schema, input);
  return r.success ? { ok: true, value: r.output } : { ok: false, errors: issueMap(r.issues) };
}

/** Parses or throws the error `fail` makes of the error map. */
export function parseInput<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  fail: (errors: Record<string, string>) => AppError,
): v.InferOutput<S> {
  const r = check(schema, input);
  if (r.ok) return r.value;
  throw fail(r.errors);
}

/** One line naming every field at fault: `name: required; dates.birth: must be a date`. */
export function summary(errors: Record<string, string>): string {
  return Object.entries(errors)
    .map(([k, m]) => (k ? `${k}: ${m}` : m))
    .join('; ');
}
