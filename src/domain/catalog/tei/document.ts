// TEI P5 documents for the authority files, pure functions over rows; the elements follow TEI's content models
// (keywords: a <taxonomy> in the header, TEIC/TEI#2530). Change TEI_FORMAT (exports.ts) with the mapping.
import { clean, dateAttributes } from './dates.js';
import { el, parent, serialize, serialized, stripInvalidXmlChars, type XmlNode } from '../xml.js';

/** An element with child elements and no attributes. */
const wrap = (name: string, children: readonly XmlNode[]): XmlNode => parent(name, [], children);

export { dateAttributes, isIsoYearZeroDate, isW3cDate } from './dates.js';

/** A row as stored: every column, JSON ones as their text; what the TEI mapping reads. */
export interface StoredRow {
  id: number;
  [column: string]: unknown;
}

/**
 * One run of entries of a document, in id order: the rows it takes (those whose `column` is, or
 * with `not` is not, one of `values`; every row without `rows`) and how one row is written.
 */
export interface TeiSection {
  rows?: { column: string; values: readonly string[]; not?: boolean };
  /** One entry, serialised where it stands in the document (indented for its depth). */
  entry(row: StoredRow): string;
}

/** A resource's TEI export: its sections and the document around them (exports.ts writes them in slices). */
export interface TeiProjection {
  sections: readonly TeiSection[];
  /** `parts[i]`: section i's entries joined by line breaks, or null; `entries` counts them all. */
  frame(parts: readonly (string | null)[], entries: number, lastChange: string | null): string;
}

/** Whether a section takes a row (the same choice its SQL makes, see exports.ts). */
export function sectionHolds(section: TeiSection, row: StoredRow): boolean {
  if (!section.rows) return true;
  const { column, values, not } = section.rows;
  const value = row[column];
  const listed = typeof value === 'string' && values.includes(value);
  return not ? !listed : listed;
}

/** The whole document of `rows` (in id order), as the export writes it in pieces. */
export function documentOf(projection: TeiProjection, rows: readonly StoredRow[], lastChange: string | null): string {
  const parts = projection.sections.map((section) => {
    const entries = rows.filter((r) => sectionHolds(section, r)).map((r) => section.entry(r));
    return entries.length > 0 ? entries.join('\n') : null;
  });
  return projection.frame(parts, rows.length, lastChange);
}

// Type aliases, not interfaces, so a mapping row is a StoredRow too. Optional columns are Anton's
// (variants, abbreviations, SIKART, Wikipedia): absent before its migration.
type NamedRow = {
  id: number;
  name: string;
  label: string | null;
  alternative_names: string | null;
  comment: string | null;
  gnd: string | null;
  variants?: string | null;
  abbreviations?: string | null;
};

export type ActorRow = NamedRow & {
  type: string;
  date_start: string | null;
  date_end: string | null;
  sikart?: string | null;
};

export type PlaceRow = NamedRow & {
  city: string | null;
  state: string | null;
  address: string | null;
  country_code: string | null;
  location: string | null;
  geonames: string | null;
  wikipedia?: string | null;
};

export type KeywordRow = Pick<NamedRow, 'id' | 'name' | 'label' | 'gnd'>;

/** Actor types exported as <person>; every other type is an <org>. */
const PERSON_TYPES = ['person', 'family'];

// A BCP 47-shaped tag; anything else cannot go into xml:lang and is left out.
const LANG_TAG = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;

function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null; // a damaged stored value must not take the whole export down
  }
}

/** `label` (JSON object locale → string) as [lang, text] pairs with usable tags, sorted for stable output. */
export function labels(text: string | null): [string, string][] {
  const value = parseJson(text);
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>)
    .filter((e): e is [string, string] => LANG_TAG.test(e[0]) && typeof e[1] === 'string' && e[1].trim() !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `alternative_names` (JSON array of strings), non-empty strings only. */
export function alternativeNames(text: string | null): string[] {
  const value = parseJson(text);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
}

/** <birth when="1901"/>, <birth when-iso="0000"/>, or <birth>c. 1900</birth>: free-text dates are kept, not lost. */
function pointDate(name: string, value: string | null): XmlNode[] {
  const v = clean(value);
  if (!v) return [];
  const { attrs, free } = dateAttributes([['when', v]]);
  return [el(name, attrs, free[0] ?? null)];
}

/** A period (null without either end): from/to attributes, its text "start–end", whether an end is free text. */
function rangeDate(start: string | null, end: string | null) {
  const s = clean(start);
  const e = clean(end);
  if (s === null && e === null) return null;
  const { attrs, free } = dateAttributes([
    ['from', s],
    ['to', e],
  ]);
  return { attrs, text: `${s ?? ''}–${e ?? ''}`, free: free.length > 0 };
}

/** The name, then its other forms, each typed: alternative names, variants, abbreviations, labels by language. */
function names(element: string, row: NamedRow): XmlNode[] {
  const typed = (type: string, text: string | null | undefined) =>
    alternativeNames(text ?? null).map((n) => el(element, [['type', type]], n));
  return [
    el(element, [], row.name),
    ...typed('alternative', row.alternative_names),
    ...typed('variant', row.variants),
    ...typed('abbreviation', row.abbreviations),
    ...labels(row.label).map(([lang, text]) =>
      el(
        element,
        [
          ['type', 'label'],
          ['xml:lang', lang],
        ],
        text,
      ),
    ),
  ];
}

const idno = (type: string, value: string | null | undefined): XmlNode[] => {
  const v = clean(value);
  return v ? [el('idno', [['type', type]], v)] : [];
};

const note = (text: string | null): XmlNode[] => (clean(text) ? [el('note', [], text)] : []);

/**
 * `lastChange` is the newest `updated_at`, not the generation time: the same data gives the same
 * bytes, so the ETag (content hash) and Last-Modified stay put across refreshes.
 */
function teiDocument(
  title: string,
  lastChange: string | null,
  entries: number,
  header: XmlNode[],
  body: XmlNode | null,
): string {
  const count = `${entries} ${entries === 1 ? 'entry' : 'entries'}`;
  const changed = lastChange ? `, last changed at ${lastChange}` : '';
  const teiHeader = wrap('teiHeader', [
    wrap('fileDesc', [
      wrap('titleStmt', [el('title', [], title)]),
      wrap('publicationStmt', [el('p', [], `Exported by archivectl from the archive catalogue: ${count}${changed}.`)]),
      wrap('sourceDesc', [el('p', [], 'Born digital: exported from the authority files of the archive catalogue.')]),
    ]),
    ...header,
  ]);
  const resource = body ?? wrap('text', [wrap('body', [el('p', [])])]);
  const root = parent('TEI', [['xmlns', 'http://www.tei-c.org/ns/1.0']], [teiHeader, resource]);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(root)}\n`;
}

function standOff(lists: (XmlNode | null)[]): XmlNode | null {
  const present = lists.filter((l): l is XmlNode => l !== null);
  return present.length > 0 ? wrap('standOff', present) : null;
}

/** A list element around a section's entries; none for a section without any (TEI forbids empty lists). */
const list = (name: string, part: string | null | undefined): XmlNode | null =>
  part ? wrap(name, [serialized(part)]) : null;

/** A value for @type (teidata.enumerated: no spaces, no controls); damaged values are made to fit. */
function word(value: string | null): string | null {
  const w = stripInvalidXmlChars(value ?? '').replace(/[\p{C}\p{Z}]+/gu, '_');
  return w === '' || w === '_' ? null : w;
}

function person(a: ActorRow): XmlNode {
  // Persons have a life (birth, death); a family has only a period of activity (floruit).
  let dates: XmlNode[];
  if (a.type === 'family') {
    const range = rangeDate(a.date_start, a.date_end);
    dates = range ? [el('floruit', range.attrs, range.free ? range.text : null)] : [];
  } else {
    dates = [...pointDate('birth', a.date_start), ...pointDate('death', a.date_end)];
  }
  return parent(
    'person',
    [
      ['xml:id', `actor-${a.id}`],
      ['role', a.type === 'family' ? 'family' : null],
    ],
    [...names('persName', a), ...dates, ...idno('GND', a.gnd), ...idno('SIKART', a.sikart), ...note(a.comment)],
  );
}

function org(a: ActorRow): XmlNode {
  // No floruit/birth (persons' only): the existence <event> (model.orgPart) is dated with from/to.
  const range = rangeDate(a.date_start, a.date_end);
  const existence = range
    ? [parent('event', [['type', 'existence'], ...range.attrs], [el('label', [], range.text)])]
    : [];
  return parent(
    'org',
    [
      ['xml:id', `actor-${a.id}`],
      ['type', word(a.type)],
    ],
    [...names('orgName', a), ...idno('GND', a.gnd), ...idno('SIKART', a.sikart), ...existence, ...note(a.comment)],
  );
}

/** The actors export: persons and families in <listPerson>, every other actor type in <listOrg>. */
export const ACTORS_TEI: TeiProjection = {
  // Depth 3: TEI > standOff > listPerson/listOrg > entry.
  sections: [
    { rows: { column: 'type', values: PERSON_TYPES }, entry: (a) => serialize(person(a as ActorRow), 3) },
    { rows: { column: 'type', values: PERSON_TYPES, not: true }, entry: (a) => serialize(org(a as ActorRow), 3) },
  ],
  frame: ([persons, orgs], entries, lastChange) =>
    teiDocument('Actors', lastChange, entries, [], standOff([list('listPerson', persons), list('listOrg', orgs)])),
};

export const actorsDocument = (rows: readonly ActorRow[], lastChange: string | null): string =>
  documentOf(ACTORS_TEI, rows, lastChange);

// How places store their location (fields.ts): "<lat> <lon>" in decimal degrees, signs optional.
const LAT_LON = /^\s*([-+]?\d{1,3}(?:\.\d+)?)[\s,]+([-+]?\d{1,3}(?:\.\d+)?)\s*$/;

/**
 * <geo> in TEI's default geoDecl, WGS84 "latitude longitude" in decimal degrees. Any other value
 * (other coordinate systems, damaged text) is kept as a note rather than passed off as WGS84.
 */
function geo(location: string | null): XmlNode[] {
  const v = clean(location);
  if (!v) return [];
  const [lat, lon] = (LAT_LON.exec(v)?.slice(1) ?? []).map((n) => n.replace(/^\+/, ''));
  if (lat !== undefined && lon !== undefined && Math.abs(Number(lat)) <= 90 && Math.abs(Number(lon)) <= 180) {
    return [el('geo', [], `${lat} ${lon}`)];
  }
  return [el('note', [['type', 'coordinates']], v)];
}

/** An address as stored (up to 512 characters, several lines allowed): one addrLine per non-empty line. */
function address(text: string | null): XmlNode[] {
  const lines = (clean(text) ?? '')
    .split(/\r\n|\r|\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => el('addrLine', [], l));
  return lines.length > 0 ? [wrap('address', lines)] : [];
}

function place(p: PlaceRow): XmlNode {
  const country = clean(p.country_code);
  const where: XmlNode[] = [
    ...address(p.address),
    ...(clean(p.city) ? [el('settlement', [], clean(p.city))] : []),
    ...(clean(p.state) ? [el('region', [], clean(p.state))] : []),
    ...(country ? [el('country', [['key', country.toUpperCase()]], country.toUpperCase())] : []),
    ...geo(p.location),
  ];
  return parent(
    'place',
    [['xml:id', `place-${p.id}`]],
    [
      ...names('placeName', p),
      ...(where.length > 0 ? [wrap('location', where)] : []),
      ...idno('GND', p.gnd),
      ...idno('GeoNames', p.geonames),
      ...idno('Wikipedia', p.wikipedia),
      ...note(p.comment),
    ],
  );
}

/** The places export: one <listPlace>. */
export const PLACES_TEI: TeiProjection = {
  sections: [{ entry: (p) => serialize(place(p as PlaceRow), 3) }], // TEI > standOff > listPlace > place
  frame: ([places], entries, lastChange) =>
    teiDocument('Places', lastChange, entries, [], standOff([list('listPlace', places)])),
};

export const placesDocument = (rows: readonly PlaceRow[], lastChange: string | null): string =>
  documentOf(PLACES_TEI, rows, lastChange);

const GND_URI = 'https://d-nb.info/gnd/';

function category(k: KeywordRow): XmlNode {
  const gnd = clean(k.gnd);
  // catDesc may hold neither idno nor equiv beside it, so the GND id travels as a link.
  // A lone surrogate in a damaged value would make encodeURIComponent throw.
  return parent(
    'category',
    [
      ['xml:id', `keyword-${k.id}`],
      ['corresp', gnd ? GND_URI + encodeURIComponent(stripInvalidXmlChars(gnd)) : null],
    ],
    [el('catDesc', [], k.name), ...labels(k.label).map(([lang, text]) => el('catDesc', [['xml:lang', lang]], text))],
  );
}

/** The keywords export: a <taxonomy> in the header's classDecl, one <category> per keyword. */
export const KEYWORDS_TEI: TeiProjection = {
  // TEI > teiHeader > encodingDesc > classDecl > taxonomy > category
  sections: [{ entry: (k) => serialize(category(k as KeywordRow), 5) }],
  frame: ([categories], entries, lastChange) => {
    const taxonomy = parent(
      'taxonomy',
      [['xml:id', 'keywords']],
      [el('desc', [], 'Keywords of the archive catalogue'), ...(categories ? [serialized(categories)] : [])],
    );
    const encodingDesc = wrap('encodingDesc', [wrap('classDecl', [taxonomy])]);
    return teiDocument('Keywords', lastChange, entries, [encodingDesc], null);
  },
};

export const keywordsDocument = (rows: readonly KeywordRow[], lastChange: string | null): string =>
  documentOf(KEYWORDS_TEI, rows, lastChange);
