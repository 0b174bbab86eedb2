// The value schemas of the catalogue's fields, combined into record schemas (record-schema.ts).
// Each turns an untrusted JSON value into a typed, normalised value or one short message, never a
// path inside its value, so a client's 422 names the field it sent.
// The table alone (index.js): the package's main entry also loads the names in 80 languages.
import { getAlpha2Codes } from 'i18n-iso-countries/index.js';
import { v } from '../../validation.js';
import { swissToWgs84 } from './anton/location.js';
import { isPlainObject } from './json-values.js';
import type { ValueSchema } from './record-schema.js';

export { isPlainObject, isStringArray, isStringRecord } from './json-values.js';
export { field, readFields } from './record-schema.js';

// C0 controls other than tab, LF and CR have no business in catalogue text, break the
// line-oriented formats we emit (BEACON, TEI), and PostgreSQL refuses NUL in text.
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export const hasControlChars = (s: string): boolean => CONTROL_RE.test(s);

// Also refused in text: C1 controls, U+2028/U+2029, unpaired surrogates and noncharacters.
const NOT_TEXT_RE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029\uD800-\uDFFF\uFDD0-\uFDEF\uFFFE\uFFFF\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/u;

/** Why a catalogue text cannot be stored (its first offending character, named), or null. */
export function textProblem(s: string): string | null {
  const m = NOT_TEXT_RE.exec(s);
  if (!m) return null;
  const c = m[0].codePointAt(0) ?? 0;
  const code = `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  if (c <= 0x9f) return `must not contain control characters (${code})`;
  if (c === 0x2028 || c === 0x2029) return `must not contain line or paragraph separators (${code})`;
  if (c >= 0xd800 && c <= 0xdfff) return `must not contain unpaired surrogates (${code})`;
  return `must not contain noncharacters (${code})`;
}

/** Prefixes every key of an error map, e.g. `name` → `actors[3].name`. */
export function prefixErrors(prefix: string, errors: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(errors).map(([k, m]) => [`${prefix}.${k}`, m]));
}

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

export function checkValue<T>(schema: ValueSchema<T>, value: unknown): Checked<T> {
  const r = v.safeParse(schema, value);
  return r.success ? { ok: true, value: r.output } : { ok: false, message: r.issues[0].message };
}

export function checker<T>(schema: ValueSchema<T>): (value: unknown) => Checked<T> {
  return (value) => checkValue(schema, value);
}

export const valueOr = <T>(schema: ValueSchema<T>, value: unknown): T | null => {
  const r = v.safeParse(schema, value);
  return r.success ? r.output : null;
};

const codePoints = (s: string) => [...s].length;

/** The characters NOT_TEXT_RE refuses that a description's pattern can name (no flags there). */
const NOT_TEXT = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u2028\\u2029';
/** A described text: none of NOT_TEXT, and (`required`) one character that is not white space. */
export const textPattern = (required: boolean, extra = '') =>
  required ? `^[^${NOT_TEXT}${extra}]*[^\\s${NOT_TEXT}${extra}][^${NOT_TEXT}${extra}]*$` : `^[^${NOT_TEXT}${extra}]*$`;

/** Catalogue text, trimmed, of min..max code points; line breaks and tabs pass (not in `name`). */
export function text(max: number, min = 1): ValueSchema<string> {
  return v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.check(
      (s) => codePoints(s) >= min && codePoints(s) <= max,
      min > 0 ? `must be 1 to ${max} characters` : `must be at most ${max} characters`,
    ),
    // What the description of the API says of it (JSON Schema counts code points, as the check does).
    v.metadata({ minLength: min, maxLength: max, pattern: textPattern(min > 0) }),
    v.rawCheck<string>(({ dataset, addIssue }) => {
      const problem = dataset.typed ? textProblem(dataset.value) : null;
      if (problem !== null) addIssue({ message: problem });
    }),
  );
}

/** A single-line name: no line breaks either (names appear in BEACON lines and select2 lists). */
export function name(max = 255): ValueSchema<string> {
  return v.pipe(
    text(max),
    v.check((s) => !/[\r\n\t]/.test(s), 'must be a single line'),
    v.description('a single line: no line breaks or tabs'),
    v.metadata({ pattern: textPattern(true, '\\r\\n\\t') }),
  );
}

const NAME = name(255);

export function pattern(re: RegExp, description: string, normalise = (s: string) => s, uri = ''): ValueSchema<string> {
  const id = re.source.replace(/^\^/, '').replace(/\$$/, '');
  return v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.transform(normalise),
    v.check((s) => s.length <= 64 && re.test(s), `must be ${description}`),
    v.description(description),
    // Described: the id, or (`uri`) the URI prefix that normalise removes before it.
    v.metadata({ pattern: uri ? `^(${uri})?(${id})$` : `^(${id})$` }),
  );
}

/** A check and normalisation in one step: `convert` answers the new value, or `refuse(message)`. */
function converted<I, O>(convert: (input: I, refuse: (message: string) => null) => O | null) {
  return v.rawTransform<I, O>(({ dataset, addIssue, NEVER }) => {
    const out = convert(dataset.value, (message) => {
      addIssue({ message });
      return null;
    });
    return out === null && dataset.issues ? NEVER : (out as O);
  });
}

const LOCALE_RE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/;

/** `label`: locale → name. Null or blank values (Anton allows null) are dropped; none left is null. */
export const LABEL_MAP: ValueSchema<Record<string, string> | null> = v.pipe(
  v.custom<Record<string, unknown>>(isPlainObject, 'must be an object of locale → string, e.g. {"en": "…"}'),
  v.check((o) => Object.keys(o).length <= 50, 'must have at most 50 locales'),
  v.metadata({
    type: 'object',
    maxProperties: 50,
    propertyNames: { pattern: LOCALE_RE.source },
    additionalProperties: { type: ['string', 'null'], maxLength: 255, pattern: textPattern(false, '\\r\\n\\t') },
    description: 'locale → name, e.g. {"de": "Zürich", "fr": "Zurich"}; null or blank names are dropped',
  }),
  converted((o: Record<string, unknown>, refuse) => {
    // A null-prototype object: a locale named "__proto__" stays a plain key.
    const out = Object.create(null) as Record<string, string>;
    for (const key of Object.keys(o)) {
      if (!LOCALE_RE.test(key)) return refuse('keys must be locale codes such as "en" or "de-CH"');
      const raw = o[key];
      if (raw === null || (typeof raw === 'string' && raw.trim() === '')) continue;
      const r = checkValue(NAME, raw);
      if (!r.ok) return refuse(`${key}: ${r.message}`);
      out[key] = r.value;
    }
    return Object.keys(out).length === 0 ? null : out;
  }),
);

/** The name a body giving only a `label` stands for; works on unchecked input (checked later). */
export function labelName(label: unknown): string | undefined {
  if (!isPlainObject(label)) return undefined;
  for (const key of ['de', 'en', 'fr', 'it', ...Object.keys(label)]) {
    const value = Object.hasOwn(label, key) ? label[key] : undefined;
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return undefined;
}

/** An array of at most `max` names, checked one by one so the message names the bad entry (`[2] …`). */
export function nameList(max: number, notArray: string): ValueSchema<string[]> {
  return v.pipe(
    v.array(v.unknown(), notArray),
    v.maxLength(max, `must have at most ${max} entries`),
    v.metadata({ items: { type: 'string', minLength: 1, maxLength: 255, pattern: textPattern(true, '\\r\\n\\t') } }),
    converted((items: unknown[], refuse) => {
      const out: string[] = [];
      for (const [i, item] of items.entries()) {
        const r = checkValue(NAME, item);
        if (!r.ok) return refuse(`[${i}] ${r.message}`);
        out.push(r.value);
      }
      return out;
    }),
  );
}

export const NAME_LIST = nameList(100, 'must be an array of strings');

const DATE_MESSAGE = 'must be a date YYYY, YYYY-MM or YYYY-MM-DD';

function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), m[2] === undefined ? 1 : Number(m[2]), m[3] === undefined ? 1 : Number(m[3])];
  const at = new Date(Date.UTC(2000, mo - 1, d));
  at.setUTCFullYear(y);
  return at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === d;
}

/** Calendar dates of varying precision: `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (a real date). */
export const PARTIAL_DATE: ValueSchema<string> = v.pipe(
  v.string(DATE_MESSAGE),
  v.trim(),
  v.check(isCalendarDate, DATE_MESSAGE),
  // Described with each month's days; 29 February of a year that is not a leap year is the one
  // date the description admits and the daemon refuses (a leap year is beyond a plain pattern).
  v.metadata({
    pattern: '^[0-9]{4}(-(0[1-9]|1[0-2])(-(0[1-9]|1[0-9]|2[0-9]))?|-(0[13-9]|1[0-2])-30|-(0[13578]|1[02])-31)?$',
    description: 'a date: YYYY, YYYY-MM or YYYY-MM-DD',
  }),
);
export const partialDate = checker(PARTIAL_DATE);

/** Whether `end` is before `start` at the precision both have (`1900` and `1900-05` overlap). */
export function dateBefore(end: string, start: string): boolean {
  const n = Math.min(end.length, start.length);
  return end.slice(0, n) < start.slice(0, n);
}

// GND ids: the DNB's own pattern (Wikidata's for P227): current (1 + 8 or 9 digits + check digit),
// old SWD (4/7 + 6 digits + "-" + check digit), GKD (e.g. 2037654-4, 5-X) and old PND (3 + 8 digits
// + check character) numbers. Check digits are not verified: the DNB's own data has a few bad ones.
export const GND_RE = /^(?:1[012]?\d{7}[0-9X]|[47]\d{6}-\d|[1-9]\d{0,7}-[0-9X]|3\d{7}[0-9X])$/;
const GND_URI_RE = /^https?:\/\/d-nb\.info\/gnd\//i;

/** `gnd`: a GND id; the URI form `https://d-nb.info/gnd/<id>` is accepted and stored as the id. */
export const GND_ID = pattern(
  GND_RE,
  'a GND identifier such as 118540238 or 4005728-8',
  (s) => s.replace(GND_URI_RE, ''),
  'https?://d-nb\\.info/gnd/',
);

const GEONAMES_URI_RE = /^https?:\/\/(?:sws\.|www\.)?geonames\.org\/(\d+)(?:\/.*)?$/i;

/** `geonames`: a GeoNames id (digits); the URI form is accepted and stored as the id. */
export const GEONAMES_ID = pattern(
  /^[1-9][0-9]{0,11}$/,
  'a GeoNames identifier (digits)',
  (s) => s.replace(GEONAMES_URI_RE, '$1'),
  'https?://(sws\\.|www\\.)?geonames\\.org/',
);

const COUNTRY_MESSAGE = 'must be an ISO 3166-1 alpha-2 code in uppercase, e.g. CH';

/** The assigned ISO 3166-1 alpha-2 codes, from i18n-iso-countries' table (not every two letters). */
export const COUNTRY_CODES = Object.keys(getAlpha2Codes()).sort();

export const COUNTRY_CODE: ValueSchema<string> = v.picklist(COUNTRY_CODES, COUNTRY_MESSAGE);

const DECIMAL_RE = /^[-+]?\d{1,3}(?:\.\d{1,12})?$/;
const LOCATION_MESSAGE =
  'must be "<latitude> <longitude>" in decimal degrees, e.g. "47.3769 8.5417", or Swiss coordinates, e.g. "2683000 1247000"';

/** `location`: `"<lat> <lon>"` in decimal degrees, or Swiss coordinates (LV95/LV03) converted. */
export const LOCATION: ValueSchema<string> = v.pipe(
  v.string(LOCATION_MESSAGE),
  v.description(LOCATION_MESSAGE.replace(/^must be/, 'given as')),
  // Described: decimal degrees in range (Swiss coordinates are accepted too, but not described).
  v.metadata({
    pattern:
      '^[-+]?([0-8]?[0-9](\\.[0-9]{1,12})?|90(\\.0{1,12})?) [-+]?((1[0-7][0-9]|0?[0-9]?[0-9])(\\.[0-9]{1,12})?|180(\\.0{1,12})?)$',
  }),
  converted((raw: string, refuse) => {
    const parts = raw.trim().split(/\s+/);
    if (parts.length === 2 && parts.every((p) => DECIMAL_RE.test(p))) {
      const [lat, lon] = parts as [string, string];
      if (Math.abs(Number(lat)) > 90) return refuse('latitude must be from -90 to 90');
      if (Math.abs(Number(lon)) > 180) return refuse('longitude must be from -180 to 180');
      return `${lat} ${lon}`;
    }
    return (raw.length <= 64 ? swissToWgs84(raw) : null) ?? refuse(LOCATION_MESSAGE);
  }),
);
export const location = checker(LOCATION);

const SIKART_URI_RE =
  /^https?:\/\/(?:www\.|recherche\.)?(?:sikart\.ch|sik-isea\.ch)\/.*?(?:sik:person-|[?&]id=)(\d+)(?:\D.*)?$/i;

/**
 * `sikart`: an id of SIKART, the lexicon of art in Switzerland; its URIs (current
 * `…/sik:person-4000055/in/sikart`, old `…/KuenstlerInnen.aspx?id=4000055`) are stored as the id.
 */
export const SIKART_ID = pattern(/^[1-9][0-9]{3,11}$/, 'a SIKART identifier (digits, e.g. 4000055)', (s) =>
  s.replace(SIKART_URI_RE, '$1'),
);
export const sikartId = checker(SIKART_ID);

const WIKIPEDIA_RE = /^https?:\/\/([a-z][a-z0-9-]{1,19})\.(?:m\.)?wikipedia\.org\/wiki\/([^?#]+)(?:#.*)?$/i;
const WIKIPEDIA_MESSAGE = 'must be the URL of a Wikipedia article, e.g. "https://de.wikipedia.org/wiki/Zürich"';

/**
 * The URLs the description promises: an article's title of 1 to 255 characters, not only spaces
 * or underscores, without percent escapes (whose decoded form a pattern cannot check) or the
 * characters a title never holds. The daemon takes more (escapes, any case, a fragment).
 */
const WIKIPEDIA_PATTERN =
  '^https?://[a-z][a-z0-9-]{1,19}\\.(m\\.)?wikipedia\\.org/wiki/(?![\\s_]*$)' +
  '[^?#%|<>\\[\\]{}\\u0000-\\u001f\\u007f-\\u009f\\ufffe\\uffff]{1,255}$';

function decoded(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** `wikipedia`: an article's URL as an IRI in MediaWiki's canonical form, so it is a link and one BEACON token. */
export const WIKIPEDIA_URL: ValueSchema<string> = v.pipe(
  v.string(WIKIPEDIA_MESSAGE),
  v.maxLength(2048, WIKIPEDIA_MESSAGE),
  v.metadata({
    format: 'iri',
    pattern: WIKIPEDIA_PATTERN,
    description: WIKIPEDIA_MESSAGE.replace(/^must be/, 'given as'),
  }),
  converted((raw: string, refuse) => {
    const m = WIKIPEDIA_RE.exec(raw.trim());
    if (!m) return refuse(WIKIPEDIA_MESSAGE);
    const title = decoded(m[2] as string)
      ?.replace(/[\s_]+/g, '_')
      .replace(/^_+|_+$/g, '');
    // MediaWiki titles never hold these; control characters have no business in a link.
    // eslint-disable-next-line no-control-regex
    if (!title || codePoints(title) > 255 || /[|<>[\]{}#\u0000-\u001f\u007f-\u009f\ufffe\uffff]/u.test(title)) {
      return refuse(WIKIPEDIA_MESSAGE);
    }
    const iri = title.replace(/[%?"\\^`]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
    return `https://${(m[1] as string).toLowerCase()}.wikipedia.org/wiki/${iri}`;
  }),
);
export const wikipediaUrl = checker(WIKIPEDIA_URL);
