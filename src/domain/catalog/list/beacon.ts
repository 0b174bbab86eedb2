// The BEACON format (beacon.md in github.com/gbv/beaconspec) of the link dumps of actors and
// places (beacon-dump.ts): one link per entity with an identifier of the chosen authority file,
// from that identifier to the entity's URL in this API, annotated with its name.
import { invalid } from '../../../errors.js';
import { check, oneOf, v } from '../../../validation.js';
import { optionalParam, type QueryInput } from './params.js';

export type BeaconProvider = 'gnd' | 'geonames' | 'sikart' | 'wikipedia';

/** Each provider's URI pattern (`#PREFIX`; `{ID}` the identifier, else appended); null: identifiers are URLs. */
export const PROVIDERS: Record<BeaconProvider, { prefix: string | null }> = {
  gnd: { prefix: 'https://d-nb.info/gnd/' },
  // GeoNames' concept URIs end with a slash.
  geonames: { prefix: 'https://sws.geonames.org/{ID}/' },
  // SIKART's persistent person URIs (the form Wikidata's property P781 links to).
  sikart: { prefix: 'https://recherche.sik-isea.ch/sik:person-{ID}/in/sikart' },
  // Articles of any language edition: the stored value is the article's URL.
  wikipedia: { prefix: null },
};

export const providerSchema = <P extends BeaconProvider>(allowed: readonly P[]) =>
  v.object({ provider: optionalParam(oneOf(allowed)) });
/** Each resource's schema, built once (its `allowed` list is a constant of its description). */
const providerSchemas = new WeakMap<readonly BeaconProvider[], ReturnType<typeof providerSchema>>();

/** `?provider=` for `format=beacon`: `gnd` by default; the resource says which it has. */
export function parseBeaconProvider<P extends BeaconProvider>(query: QueryInput, allowed: readonly P[]): P {
  let schema = providerSchemas.get(allowed);
  if (!schema) providerSchemas.set(allowed, (schema = providerSchema(allowed)));
  const read = check(schema, query);
  if (!read.ok) throw invalid('invalid list parameters', read.errors);
  const provider = read.value.provider ?? (allowed.includes('gnd' as P) ? 'gnd' : undefined);
  if (provider === undefined)
    throw invalid('invalid list parameters', { provider: `must be one of ${allowed.join(', ')}` });
  return provider as P;
}

// Characters a BEACON file may not hold (beacon.md §2.2: CHAR is XML 1.0's set minus most
// controls): C0 controls but tab/LF/CR, DEL, C1 controls, lone surrogates, noncharacters (the
// last two code points of every plane, and U+FDD0-FDEF: the grammar allows them, but they are
// not text either), and U+FEFF (a byte order mark inside a line: invisible).
const NOT_BEACON_CHAR =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uD800-\uDFFF\uFDD0-\uFDEF\uFEFF]|[\uFFFE\uFFFF\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/gu;
// U+2028/U+2029, which line-splitting readers other than BEACON's take for line ends (VT, FF, NEL:
// removed above as controls).
const UNICODE_LINE_END = /[\u2028\u2029]/g;

/** A value as one BEACON token (beacon.md §2.2-2.3): `|` becomes `/`, whitespace runs one space. */
export function beaconToken(s: string): string {
  return s
    .normalize('NFKC') // may turn e.g. U+FF5C (fullwidth vertical line) into "|"
    .replace(NOT_BEACON_CHAR, '')
    .replace(UNICODE_LINE_END, ' ')
    .replace(/\|/g, '/')
    .replace(/[\t\n\r ]+/g, ' ')
    .trim();
}

/** A link's fields: the authority identifier, our id (expanded by `#TARGET`), the entity's name. */
export interface BeaconLink {
  source: string;
  id: number;
  annotation: string;
}

export interface BeaconHeader {
  provider: BeaconProvider;
  name: string;
  /** URI pattern of our resources, with `{ID}`. */
  target: string;
  /** The dump's last change; null (an empty register) leaves `#TIMESTAMP` out. */
  timestamp: Date | null;
}

/** The head of a BEACON text file: meta lines and the empty line after them (the links follow). */
export function beaconHeader(header: BeaconHeader): string {
  const prefix = PROVIDERS[header.provider].prefix;
  // RFC 3339 `date-time` with an uppercase T and Z, whole seconds (beacon.md §3.2.6).
  const timestamp = header.timestamp?.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const lines = [
    '#FORMAT: BEACON',
    ...(prefix === null ? [] : [`#PREFIX: ${beaconToken(prefix)}`]),
    `#TARGET: ${beaconToken(header.target)}`,
    '#RELATION: http://www.w3.org/2000/01/rdf-schema#seeAlso',
    `#NAME: ${beaconToken(header.name)}`,
    ...(timestamp === undefined ? [] : [`#TIMESTAMP: ${timestamp}`]),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/** One link line, or '' when the source token would be empty (beacon.md: not whitespace only). */
export function beaconLine(link: BeaconLink): string {
  const source = beaconToken(link.source);
  return source === '' ? '' : `${source}|${beaconToken(link.annotation)}|${link.id}\n`;
}

/** A whole BEACON text file: beaconHeader, then one beaconLine per entity that has the provider's id. */
export function renderBeacon(header: BeaconHeader, links: BeaconLink[]): string {
  return beaconHeader(header) + links.map(beaconLine).join('');
}
