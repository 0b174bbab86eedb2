// Alternative list formats (SPEC §4.4): select2 for selection widgets, BEACON link dumps for
// authority-file aggregators (the GND's, or GeoNames' for places).
import { invalid } from '../../errors.js';
import { singleParam, type ListResult, type QueryInput } from './list.js';

export interface Select2Answer {
  results: { id: number; text: string }[];
  /** select2's own paging hint: whether a further page exists. */
  pagination: { more: boolean };
}

export function toSelect2<T extends { id: number }>(list: ListResult<T>, textOf: (item: T) => string): Select2Answer {
  const { page, perPage, total } = list.meta;
  return {
    results: list.data.map((item) => ({ id: item.id, text: textOf(item) })),
    pagination: { more: page * perPage < total },
  };
}

export type BeaconProvider = 'gnd' | 'geonames';

interface ProviderSpec {
  /** The authority file's URI pattern (BEACON `#PREFIX`); `{ID}` stands for the identifier. */
  prefix: string;
  /** The column holding that authority's identifier. */
  column: 'gnd' | 'geonames';
}

export const PROVIDERS: Record<BeaconProvider, ProviderSpec> = {
  gnd: { prefix: 'https://d-nb.info/gnd/', column: 'gnd' },
  // GeoNames' concept URIs end with a slash.
  geonames: { prefix: 'https://sws.geonames.org/{ID}/', column: 'geonames' },
};

/** `?provider=` for `format=beacon`: `gnd` by default; the resource says which it has. */
export function parseBeaconProvider<P extends BeaconProvider>(query: QueryInput, allowed: readonly P[]): P {
  const errors: Record<string, string> = {};
  const raw = singleParam(query, 'provider', errors);
  if (raw === undefined && !errors.provider && (allowed as readonly string[]).includes('gnd')) return 'gnd' as P;
  if (raw !== undefined && (allowed as readonly string[]).includes(raw)) return raw as P;
  throw invalid('invalid list parameters', { provider: errors.provider ?? `must be one of ${allowed.join(', ')}` });
}

export interface BeaconLink {
  /** The authority identifier (source field). */
  source: string;
  /** Our id (target field, expanded by `#TARGET`). */
  id: number;
  /** The entity's name (annotation field). */
  annotation: string;
}

export interface BeaconHeader {
  provider: BeaconProvider;
  /** Name of the link dump, e.g. "archivectl actors". */
  name: string;
  /** URI pattern of our resources, e.g. `https://archive.example.org/api/actors/{ID}`. */
  target: string;
  timestamp: Date;
}

/** BEACON values: one line, no vertical bar, whitespace-normalised (BEACON §1.2). */
export function beaconValue(s: string): string {
  return s.replace(/\|/g, '/').replace(/\s+/g, ' ').trim();
}

/**
 * A BEACON text file: meta lines, an empty line, then one `source|annotation|target` line per
 * entity that has the provider's id. The target field is our numeric id, expanded by the
 * `#TARGET` pattern into the resource's URL; the annotation is the entity's name.
 */
export function renderBeacon(header: BeaconHeader, links: BeaconLink[]): string {
  const lines = [
    '#FORMAT: BEACON',
    `#PREFIX: ${PROVIDERS[header.provider].prefix}`,
    `#TARGET: ${beaconValue(header.target)}`,
    '#RELATION: http://www.w3.org/2000/01/rdf-schema#seeAlso',
    `#NAME: ${beaconValue(header.name)}`,
    `#TIMESTAMP: ${header.timestamp.toISOString().replace(/\.\d{3}Z$/, 'Z')}`,
    '',
  ];
  for (const link of links) lines.push(`${beaconValue(link.source)}|${beaconValue(link.annotation)}|${link.id}`);
  return `${lines.join('\n')}\n`;
}
