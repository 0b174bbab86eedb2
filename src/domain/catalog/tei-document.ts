// TEI P5 documents for the authority files (SPEC §4.4), as pure functions over plain rows so
// the mapping is tested without a database. The element choices follow the TEI content models:
// - actors and places live in <standOff> (listPerson/listOrg/listPlace are model.standOffPart);
// - keywords form a <taxonomy>, which TEI allows only in teiHeader/encodingDesc/classDecl (not in
//   standOff; see TEIC/TEI#2530), so that document carries its data in the header;
// - lists must not be empty, so an empty catalogue yields a document with an empty <text> instead.
import { el, parent, serialize, type XmlNode } from './xml.js';

export const TEI_NS = 'http://www.tei-c.org/ns/1.0';

export interface ActorRow {
  id: number;
  type: string;
  name: string;
  label: string | null;
  alternative_names: string | null;
  date_start: string | null;
  date_end: string | null;
  comment: string | null;
  gnd: string | null;
}

export interface PlaceRow {
  id: number;
  name: string;
  label: string | null;
  city: string | null;
  state: string | null;
  address: string | null;
  country_code: string | null;
  location: string | null;
  alternative_names: string | null;
  comment: string | null;
  gnd: string | null;
  geonames: string | null;
}

export interface KeywordRow {
  id: number;
  name: string;
  label: string | null;
  gnd: string | null;
}

/** Actor types exported as <person>; every other type is an <org>. */
const PERSON_TYPES = new Set(['person', 'family']);

// --- values stored as JSON text -------------------------------------------------------------

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
  const out: [string, string][] = [];
  for (const [lang, label] of Object.entries(value)) {
    if (LANG_TAG.test(lang) && typeof label === 'string' && label.trim() !== '') out.push([lang, label]);
  }
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `alternative_names` (JSON array of strings), non-empty strings only. */
export function alternativeNames(text: string | null): string[] {
  const value = parseJson(text);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
}

// --- dates ----------------------------------------------------------------------------------

const W3C_DATE = /^(-?\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;

/** Whether `s` is an xsd:gYear, xsd:gYearMonth or xsd:date (what TEI's @when/@from/@to take). */
export function isW3cDate(s: string): boolean {
  const m = W3C_DATE.exec(s);
  if (!m) return false;
  const [, y, mo, d] = m;
  if (mo === undefined) return true;
  const month = Number(mo);
  if (month < 1 || month > 12) return false;
  if (d === undefined) return true;
  const probe = new Date(0);
  probe.setUTCFullYear(Number(y), month, 0); // day 0 of the next month: the last day of this one
  const day = Number(d);
  return day >= 1 && day <= probe.getUTCDate();
}

const clean = (s: string | null | undefined): string | null => (s && s.trim() !== '' ? s.trim() : null);

/** <birth when="1901"/> for a W3C date, else <birth>c. 1900</birth>: free-text dates are kept, not lost. */
function pointDate(name: string, value: string | null): XmlNode[] {
  const v = clean(value);
  if (!v) return [];
  return [isW3cDate(v) ? el(name, [['when', v]]) : el(name, [], v)];
}

/** from/to attributes for the W3C-valid ends; the free text as well when an end is not W3C-valid. */
function rangeDate(start: string | null, end: string | null): { attrs: [string, string | null][]; text: string | null } {
  const s = clean(start);
  const e = clean(end);
  const attrs: [string, string | null][] = [
    ['from', s && isW3cDate(s) ? s : null],
    ['to', e && isW3cDate(e) ? e : null],
  ];
  const allValid = (!s || isW3cDate(s)) && (!e || isW3cDate(e));
  return { attrs, text: allValid || (!s && !e) ? null : `${s ?? ''}–${e ?? ''}` };
}

// --- shared pieces --------------------------------------------------------------------------

function names(element: string, name: string, labelText: string | null, alternatives: string | null): XmlNode[] {
  return [
    el(element, [], name),
    ...alternativeNames(alternatives).map((n) => el(element, [['type', 'alternative']], n)),
    ...labels(labelText).map(([lang, text]) => el(element, [['type', 'label'], ['xml:lang', lang]], text)),
  ];
}

const idno = (type: string, value: string | null): XmlNode[] => {
  const v = clean(value);
  return v ? [el('idno', [['type', type]], v)] : [];
};

const note = (text: string | null, type?: string): XmlNode[] => (clean(text) ? [el('note', [['type', type]], text)] : []);

function teiDocument(title: string, generatedAt: string, entries: number, header: XmlNode[], body: XmlNode | null): string {
  const teiHeader = parent('teiHeader', [], [
    parent('fileDesc', [], [
      parent('titleStmt', [], [el('title', [], title)]),
      parent('publicationStmt', [], [el('p', [], `Generated by archivectl at ${generatedAt} (${entries} ${entries === 1 ? 'entry' : 'entries'}).`)]),
      parent('sourceDesc', [], [el('p', [], 'Born digital: exported from the authority files of the archive catalogue.')]),
    ]),
    ...header,
  ]);
  // TEI needs a resource after the header; with nothing to list, an empty text body is the valid one.
  const resource = body ?? parent('text', [], [parent('body', [], [el('p', [])])]);
  const root = parent('TEI', [['xmlns', TEI_NS]], [teiHeader, resource]);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(root)}\n`;
}

function standOff(lists: (XmlNode | null)[]): XmlNode | null {
  const present = lists.filter((l): l is XmlNode => l !== null);
  return present.length > 0 ? parent('standOff', [], present) : null;
}

const list = (name: string, items: XmlNode[]): XmlNode | null => (items.length > 0 ? parent(name, [], items) : null);

// --- actors ---------------------------------------------------------------------------------

function person(a: ActorRow): XmlNode {
  // Persons have a life (birth, death); a family has only a period of activity (floruit).
  let dates: XmlNode[];
  if (a.type === 'family') {
    const range = rangeDate(a.date_start, a.date_end);
    dates = range.attrs.some(([, v]) => v !== null) || range.text ? [el('floruit', range.attrs, range.text)] : [];
  } else {
    dates = [...pointDate('birth', a.date_start), ...pointDate('death', a.date_end)];
  }
  return parent('person', [['xml:id', `actor-${a.id}`], ['role', a.type === 'family' ? 'family' : null]], [
    ...names('persName', a.name, a.label, a.alternative_names),
    ...dates,
    ...idno('GND', a.gnd),
    ...note(a.comment),
  ]);
}

function org(a: ActorRow): XmlNode {
  // <org> is att.datable: its existence goes into from/to; free-text dates into a note.
  const range = rangeDate(a.date_start, a.date_end);
  return parent('org', [['xml:id', `actor-${a.id}`], ['type', a.type], ...range.attrs], [
    ...names('orgName', a.name, a.label, a.alternative_names),
    ...idno('GND', a.gnd),
    ...note(a.comment),
    ...note(range.text, 'dates'),
  ]);
}

/** The actors export: persons and families in <listPerson>, every other actor type in <listOrg>. */
export function actorsDocument(rows: readonly ActorRow[], generatedAt: string): string {
  const persons = rows.filter((a) => PERSON_TYPES.has(a.type)).map(person);
  const orgs = rows.filter((a) => !PERSON_TYPES.has(a.type)).map(org);
  const body = standOff([list('listPerson', persons), list('listOrg', orgs)]);
  return teiDocument('Actors', generatedAt, rows.length, [], body);
}

// --- places ---------------------------------------------------------------------------------

const LAT_LON = /^\s*(-?\d+(?:\.\d+)?)[\s,]+(-?\d+(?:\.\d+)?)\s*$/;

/** TEI's default geoDecl is WGS84 "latitude longitude", which is how places store their location. */
function geo(location: string | null): XmlNode[] {
  const v = clean(location);
  if (!v) return [];
  const m = LAT_LON.exec(v);
  return [el('geo', [], m ? `${m[1]} ${m[2]}` : v)];
}

function place(p: PlaceRow): XmlNode {
  const address = clean(p.address);
  const country = clean(p.country_code);
  const where: XmlNode[] = [
    ...(address ? [parent('address', [], [el('addrLine', [], address)])] : []),
    ...(clean(p.city) ? [el('settlement', [], p.city)] : []),
    ...(clean(p.state) ? [el('region', [], p.state)] : []),
    ...(country ? [el('country', [['key', country.toUpperCase()]], country.toUpperCase())] : []),
    ...geo(p.location),
  ];
  return parent('place', [['xml:id', `place-${p.id}`]], [
    ...names('placeName', p.name, p.label, p.alternative_names),
    ...(where.length > 0 ? [parent('location', [], where)] : []),
    ...idno('GND', p.gnd),
    ...idno('GeoNames', p.geonames),
    ...note(p.comment),
  ]);
}

/** The places export: one <listPlace>. */
export function placesDocument(rows: readonly PlaceRow[], generatedAt: string): string {
  return teiDocument('Places', generatedAt, rows.length, [], standOff([list('listPlace', rows.map(place))]));
}

// --- keywords -------------------------------------------------------------------------------

const GND_URI = 'https://d-nb.info/gnd/';

function category(k: KeywordRow): XmlNode {
  const gnd = clean(k.gnd);
  // catDesc may hold neither idno nor equiv beside it, so the GND id travels as a link.
  return parent('category', [['xml:id', `keyword-${k.id}`], ['corresp', gnd ? GND_URI + encodeURIComponent(gnd) : null]], [
    el('catDesc', [], k.name),
    ...labels(k.label).map(([lang, text]) => el('catDesc', [['xml:lang', lang]], text)),
  ]);
}

/** The keywords export: a <taxonomy> in the header's classDecl, one <category> per keyword. */
export function keywordsDocument(rows: readonly KeywordRow[], generatedAt: string): string {
  const taxonomy = parent('taxonomy', [['xml:id', 'keywords']], [
    el('desc', [], 'Keywords of the archive catalogue'),
    ...rows.map(category),
  ]);
  const encodingDesc = parent('encodingDesc', [], [parent('classDecl', [], [taxonomy])]);
  return teiDocument('Keywords', generatedAt, rows.length, [encodingDesc], null);
}
