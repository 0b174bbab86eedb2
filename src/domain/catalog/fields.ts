// Field checks shared by the catalogue's resources (actors, places, keywords, objects) and by
// `catalog load`. Each check turns an untrusted JSON value into a typed, normalised value or a
// short message; `readFields` applies a table of them to an input object and collects every
// problem, so a client sees all of its mistakes in one 422 and `catalog load` can name the entry.
import { swissToWgs84 } from './anton-location.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };
export type Check<T> = (value: unknown) => Checked<T>;

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const fail = <T>(message: string): Checked<T> => ({ ok: false, message });

/** A JSON object (not an array, not null, not a class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

// C0 controls other than tab, LF and CR have no business in catalogue text and break the
// line-oriented formats we emit (BEACON, TEI).
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** True when a string holds a C0 control other than tab, LF or CR (PostgreSQL refuses NUL in text). */
export function hasControlChars(s: string): boolean {
  return CONTROL_RE.test(s);
}

/** A trimmed string of min..max characters (code points). */
export function text(max: number, min = 1): Check<string> {
  return (v) => {
    if (typeof v !== 'string') return fail('must be a string');
    const s = v.trim();
    const length = [...s].length;
    if (length < min || length > max) {
      return fail(min > 0 ? `must be 1 to ${max} characters` : `must be at most ${max} characters`);
    }
    if (CONTROL_RE.test(s)) return fail('must not contain control characters');
    return ok(s);
  };
}

/** A single-line name: no line breaks either (names appear in BEACON lines and select2 lists). */
export function name(max = 255): Check<string> {
  const base = text(max);
  return (v) => {
    const r = base(v);
    if (r.ok && /[\r\n\t]/.test(r.value)) return fail('must be a single line');
    return r;
  };
}

export function oneOf<T extends string>(choices: readonly T[]): Check<T> {
  return (v) =>
    typeof v === 'string' && (choices as readonly string[]).includes(v)
      ? ok(v as T)
      : fail(`must be one of ${choices.join(', ')}`);
}

/** A string matching a pattern, after an optional normalisation (e.g. stripping a URI prefix). */
export function pattern(re: RegExp, description: string, normalise: (s: string) => string = (s) => s): Check<string> {
  return (v) => {
    if (typeof v !== 'string') return fail('must be a string');
    const s = normalise(v.trim());
    return s.length <= 64 && re.test(s) ? ok(s) : fail(`must be ${description}`);
  };
}

const LOCALE_RE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/;

/**
 * `label`: an object locale → string, e.g. {"de": "Zürich", "fr": "Zurich"}. A locale whose value
 * is null or blank has no translation (Anton's label allows null values) and is left out; a
 * label left with no locale at all is no label (null).
 */
export const labelMap: Check<Record<string, string> | null> = (v) => {
  if (!isPlainObject(v)) return fail('must be an object of locale → string, e.g. {"en": "…"}');
  const keys = Object.keys(v);
  if (keys.length > 50) return fail('must have at most 50 locales');
  // A null-prototype object: a locale named "__proto__" stays a plain key.
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const key of keys) {
    if (!LOCALE_RE.test(key)) return fail('keys must be locale codes such as "en" or "de-CH"');
    const raw = v[key];
    if (raw === null || (typeof raw === 'string' && raw.trim() === '')) continue;
    const r = name(255)(raw);
    if (!r.ok) return fail(`${key}: ${r.message}`);
    out[key] = r.value;
  }
  return ok(Object.keys(out).length === 0 ? null : out);
};

/** The locales a name is taken from when a body gives only a `label`, in this order. */
export const LABEL_LOCALES = ['de', 'en', 'fr', 'it'] as const;

/**
 * The name a label stands for: its `de` value, else `en`, `fr`, `it`, else the first locale
 * given; undefined when no locale has a non-blank string. Works on unchecked input too (the
 * name is then checked like any other).
 */
export function labelName(label: unknown): string | undefined {
  if (!isPlainObject(label)) return undefined;
  const usable = (k: string) => {
    const value = Object.prototype.hasOwnProperty.call(label, k) ? label[k] : undefined;
    return typeof value === 'string' && value.trim() !== '' ? value : undefined;
  };
  for (const locale of LABEL_LOCALES) {
    const value = usable(locale);
    if (value !== undefined) return value;
  }
  for (const key of Object.keys(label)) {
    const value = usable(key);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** `alternative_names`: an array of names. */
export const nameList: Check<string[]> = (v) => {
  if (!Array.isArray(v)) return fail('must be an array of strings');
  if (v.length > 100) return fail('must have at most 100 entries');
  const out: string[] = [];
  for (const [i, item] of v.entries()) {
    const r = name(255)(item);
    if (!r.ok) return fail(`[${i}] ${r.message}`);
    out.push(r.value);
  }
  return ok(out);
};

/** Calendar dates of varying precision: `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (a real date). */
export const partialDate: Check<string> = (v) => {
  const bad = fail<string>('must be a date YYYY, YYYY-MM or YYYY-MM-DD');
  if (typeof v !== 'string') return bad;
  const s = v.trim();
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(s);
  if (!m) return bad;
  const [y, mo, d] = [Number(m[1]), m[2] === undefined ? 1 : Number(m[2]), m[3] === undefined ? 1 : Number(m[3])];
  const at = new Date(Date.UTC(2000, mo - 1, d));
  at.setUTCFullYear(y);
  if (at.getUTCFullYear() !== y || at.getUTCMonth() !== mo - 1 || at.getUTCDate() !== d) return bad;
  return ok(s);
};

/**
 * Whether `end` lies before `start`, comparing at the precision both have: `1900` and `1900-05`
 * overlap, so neither is before the other.
 */
export function dateBefore(end: string, start: string): boolean {
  const n = Math.min(end.length, start.length);
  return end.slice(0, n) < start.slice(0, n);
}

// GND identifiers: the DNB's own pattern (as used by Wikidata for P227). Current numbers
// (1 + 8 or 9 digits + check digit, e.g. 118540238, 1047974410), old SWD numbers
// (4/7 + 6 digits + "-" + check digit, e.g. 4005728-8), GKD numbers (e.g. 2037654-4, 5-X)
// and old PND numbers (3 + 8 digits + check character). The check digit is not verified:
// the DNB's own data contains a few that fail it.
export const GND_RE = /^(?:1[012]?\d{7}[0-9X]|[47]\d{6}-\d|[1-9]\d{0,7}-[0-9X]|3\d{7}[0-9X])$/;
const GND_URI_RE = /^https?:\/\/d-nb\.info\/gnd\//i;

/** `gnd`: a GND id; the URI form `https://d-nb.info/gnd/<id>` is accepted and stored as the id. */
export const gndId: Check<string> = pattern(GND_RE, 'a GND identifier such as 118540238 or 4005728-8', (s) =>
  s.replace(GND_URI_RE, ''),
);

const GEONAMES_URI_RE = /^https?:\/\/(?:sws\.|www\.)?geonames\.org\/(\d+)(?:\/.*)?$/i;

/** `geonames`: a GeoNames id (digits); the URI form is accepted and stored as the id. */
export const geonamesId: Check<string> = pattern(/^[1-9][0-9]{0,11}$/, 'a GeoNames identifier (digits)', (s) =>
  s.replace(GEONAMES_URI_RE, '$1'),
);

/** `country_code`: ISO 3166-1 alpha-2, two uppercase letters. */
export const countryCode: Check<string> = (v) =>
  typeof v === 'string' && /^[A-Z]{2}$/.test(v) ? ok(v) : fail('must be two uppercase letters (ISO 3166-1 alpha-2)');

const DECIMAL_RE = /^[-+]?\d{1,3}(?:\.\d{1,12})?$/;

/**
 * `location`: `"<lat> <lon>"` in decimal degrees, latitude -90..90, longitude -180..180; or Swiss
 * coordinates (LV95/LV03, anton-location.ts), stored converted.
 */
export const location: Check<string> = (v) => {
  const bad = fail<string>(
    'must be "<latitude> <longitude>" in decimal degrees, e.g. "47.3769 8.5417", or Swiss coordinates, e.g. "2683000 1247000"',
  );
  if (typeof v !== 'string') return bad;
  const parts = v.trim().split(/\s+/);
  if (parts.length === 2 && parts.every((p) => DECIMAL_RE.test(p))) {
    const [lat, lon] = parts as [string, string];
    if (Math.abs(Number(lat)) > 90) return fail('latitude must be from -90 to 90');
    if (Math.abs(Number(lon)) > 180) return fail('longitude must be from -180 to 180');
    return ok(`${lat} ${lon}`);
  }
  const swiss = v.length <= 64 ? swissToWgs84(v) : null;
  return swiss === null ? bad : ok(swiss);
};

const SIKART_URI_RE = /^https?:\/\/(?:www\.|recherche\.)?(?:sikart\.ch|sik-isea\.ch)\/.*?(?:sik:person-|[?&]id=)(\d+)(?:\D.*)?$/i;

/**
 * `sikart`: an identifier of SIKART, the lexicon of art in Switzerland (digits, e.g. 4000055);
 * its URIs (`https://recherche.sik-isea.ch/sik:person-4000055/in/sikart`, old
 * `https://www.sikart.ch/KuenstlerInnen.aspx?id=4000055`) are stored as the id.
 */
export const sikartId: Check<string> = pattern(/^[1-9][0-9]{3,11}$/, 'a SIKART identifier (digits, e.g. 4000055)', (s) =>
  s.replace(SIKART_URI_RE, '$1'),
);

const WIKIPEDIA_RE = /^https?:\/\/([a-z][a-z0-9-]{1,19})\.(?:m\.)?wikipedia\.org\/wiki\/([^?#]+)(?:#.*)?$/i;

/**
 * `wikipedia`: the URL of a Wikipedia article, stored as an IRI in MediaWiki's canonical form:
 * `https://<language>.wikipedia.org/wiki/<Title>` with the title percent-decoded, spaces as `_`,
 * and only `%`, `?`, `"`, `\`, `^` and `` ` `` percent-encoded (so the value is a usable link
 * and a BEACON source token: no whitespace, no `|`).
 */
export const wikipediaUrl: Check<string> = (v) => {
  const bad = fail<string>('must be the URL of a Wikipedia article, e.g. "https://de.wikipedia.org/wiki/Zürich"');
  if (typeof v !== 'string' || v.length > 2048) return bad;
  const m = WIKIPEDIA_RE.exec(v.trim());
  if (!m) return bad;
  let title: string;
  try {
    title = decodeURIComponent(m[2] as string);
  } catch {
    return bad;
  }
  title = title.replace(/[\s_]+/g, '_').replace(/^_+|_+$/g, '');
  // MediaWiki titles never hold these; control characters have no business in a link.
  // eslint-disable-next-line no-control-regex
  if (title === '' || [...title].length > 255 || /[|<>[\]{}#\u0000-\u001f\u007f-\u009f\ufffe\uffff]/u.test(title)) return bad;
  const iri = title.replace(/[%?"\\^`]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return ok(`https://${(m[1] as string).toLowerCase()}.wikipedia.org/wiki/${iri}`);
};

export interface FieldSpec<T> {
  check: Check<T>;
  /** Must be present (and not null) when creating. */
  required?: boolean;
  /** May be null (clears the field). */
  nullable?: boolean;
}

export type FieldSpecs = Record<string, FieldSpec<unknown>>;
export type FieldValues<S extends FieldSpecs> = {
  [K in keyof S]?: S[K] extends FieldSpec<infer T> ? T | null : never;
};

export const field = <T>(check: Check<T>, options: Omit<FieldSpec<T>, 'check'> = {}): FieldSpec<T> => ({
  check,
  ...options,
});

/**
 * Server-set fields a client may send back unchanged (a GET result PUT back as is); they are
 * ignored rather than refused.
 */
export const READ_ONLY: readonly string[] = ['id', 'created_at', 'updated_at'];

export type Read<T> = { ok: true; values: T } | { ok: false; errors: Record<string, string> };

/**
 * Applies a field table to an untrusted input object. Only the keys of the table are read (so
 * `__proto__` or `constructor` in the input can never reach a prototype); any other key is an
 * error. In `create` mode required fields must be present; in `update` mode only the given
 * fields are returned. `readOnly` keys are skipped: server-set or derived fields sent back.
 */
export function readFields<S extends FieldSpecs>(
  input: unknown,
  specs: S,
  mode: 'create' | 'update',
  readOnly: readonly string[] = READ_ONLY,
): Read<FieldValues<S>> {
  const errors: Record<string, string> = Object.create(null) as Record<string, string>;
  if (!isPlainObject(input)) return { ok: false, errors: { body: 'must be a JSON object' } };
  const values = Object.create(null) as Record<string, unknown>;
  let unknown = 0;
  for (const key of Object.keys(input)) {
    if (hasOwn(specs, key) || readOnly.includes(key)) continue;
    // Report a few, with bounded names: the message must not become an echo of the body.
    if (unknown++ < 10) errors[key.length > 64 ? `${key.slice(0, 64)}…` : key] = 'unknown field';
  }
  for (const key of Object.keys(specs)) {
    const spec = specs[key] as FieldSpec<unknown>;
    const present = hasOwn(input, key) && input[key] !== undefined;
    if (!present) {
      if (mode === 'create' && spec.required) errors[key] = 'required';
      continue;
    }
    const raw = input[key];
    if (raw === null) {
      if (spec.nullable) values[key] = null;
      else errors[key] = spec.required ? 'required' : 'must not be null';
      continue;
    }
    const r = spec.check(raw);
    if (r.ok) values[key] = r.value;
    else errors[key] = r.message;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors: { ...errors } };
  return { ok: true, values: values as FieldValues<S> };
}

/** JSON text column → value; a damaged value reads as null rather than failing the request. */
export function parseJsonColumn<T>(raw: unknown, guard: (v: unknown) => v is T): T | null {
  if (typeof raw !== 'string') return null;
  try {
    const v = JSON.parse(raw) as unknown;
    return guard(v) ? v : null;
  } catch {
    return null;
  }
}

export const isStringRecord = (v: unknown): v is Record<string, string> =>
  isPlainObject(v) && Object.values(v).every((x) => typeof x === 'string');
export const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Value → JSON text column (null stays null). */
export function jsonColumn(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** Prefixes every key of an error map, e.g. `name` → `actors[3].name`. */
export function prefixErrors(prefix: string, errors: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(errors)) out[`${prefix}.${k}`] = v;
  return out;
}
