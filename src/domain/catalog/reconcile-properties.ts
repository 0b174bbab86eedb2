// The properties of each register as the reconciliation services name them: what the data
// extension service returns for a record, what the property suggest and proposal services
// offer, and which of them a reconciliation query may filter by (`properties: [{pid, v}]`).
import { GEONAMES_ID, GND_ID, PARTIAL_DATE, valueOr } from './fields.js';
import type { ValueSchema } from './record-schema.js';
import { alternativeNamesOf, typeIdOf, type ReconcileKind, type Row } from './reconcile-entities.js';

/** A value in a data extension answer (0.2 data-extension-response schema). */
export type PropertyValue = { str: string } | { float: number };

/** How a reconciliation query's values of a property are compared with a record's column. */
export interface PropertyMatch {
  column: string;
  /** The value as stored, or null when it cannot be one (a malformed GND id matches nothing). */
  normalise(value: string): string | null;
  /** Compared without regard to case (city, state); otherwise exactly. */
  caseInsensitive?: true;
  /** An authority identifier: a record with it is the entity, whatever its name (score 100). */
  identifies?: true;
}

export interface PropertyDef {
  id: string;
  name: string;
  description: string;
  values(row: Row): PropertyValue[];
  match?: PropertyMatch;
}

const str = (v: string | null | undefined): PropertyValue[] => (v ? [{ str: v }] : []);
const checked = (schema: ValueSchema<string>) => (value: string) => valueOr(schema, value.trim());
const exact = (value: string) => value.trim() || null;

/** "47.37 8.54" → [47.37, 8.54], or null. */
function coordinates(location: string | null | undefined): [number, number] | null {
  const parts = location?.trim().split(/\s+/).map(Number);
  return parts?.length === 2 && parts.every(Number.isFinite) ? [parts[0] as number, parts[1] as number] : null;
}

/** One of the two numbers of the location, as a number. */
function coordinate(id: string, name: string, index: 0 | 1): PropertyDef {
  return {
    id,
    name,
    description: 'Decimal degrees, from the location',
    values: (r) => {
      const c = coordinates(r.location);
      return c ? [{ float: c[index] }] : [];
    },
  };
}

const NAME: PropertyDef = { id: 'name', name: 'Name', description: 'The preferred name', values: (r) => str(r.name) };
const GND: PropertyDef = {
  id: 'gnd',
  name: 'GND',
  description: 'Identifier in the Gemeinsame Normdatei (https://d-nb.info/gnd/…)',
  values: (r) => str(r.gnd),
  match: { column: 'gnd', normalise: checked(GND_ID), identifies: true },
};
const COMMENT: PropertyDef = { id: 'comment', name: 'Comment', description: 'Free-text note', values: (r) => str(r.comment) };

function alternativeNames(kind: ReconcileKind): PropertyDef {
  return {
    id: 'alternative_names',
    name: 'Alternative names',
    description: 'Other names and spellings (one value each)',
    values: (r) => alternativeNamesOf(kind, r).map((s) => ({ str: s })),
  };
}

export const PROPERTIES: Record<ReconcileKind, readonly PropertyDef[]> = {
  actors: [
    NAME,
    {
      id: 'type',
      name: 'Type',
      description: 'person, family, corporate_body, organisational_unit, group or software',
      values: (r) => str(r.type),
      match: { column: 'type', normalise: (v) => typeIdOf('actors', v) },
    },
    alternativeNames('actors'),
    {
      id: 'date_start',
      name: 'Start date',
      description: 'Birth or founding: YYYY, YYYY-MM or YYYY-MM-DD',
      values: (r) => str(r.date_start),
      match: { column: 'date_start', normalise: checked(PARTIAL_DATE) },
    },
    {
      id: 'date_end',
      name: 'End date',
      description: 'Death or dissolution: YYYY, YYYY-MM or YYYY-MM-DD',
      values: (r) => str(r.date_end),
      match: { column: 'date_end', normalise: checked(PARTIAL_DATE) },
    },
    GND,
    COMMENT,
  ],
  places: [
    NAME,
    alternativeNames('places'),
    {
      id: 'city',
      name: 'City',
      description: 'City or municipality',
      values: (r) => str(r.city),
      match: { column: 'city', normalise: exact, caseInsensitive: true },
    },
    {
      id: 'state',
      name: 'State',
      description: 'State, canton or region',
      values: (r) => str(r.state),
      match: { column: 'state', normalise: exact, caseInsensitive: true },
    },
    { id: 'address', name: 'Address', description: 'Street address', values: (r) => str(r.address) },
    {
      id: 'country_code',
      name: 'Country',
      description: 'ISO 3166-1 alpha-2 country code',
      values: (r) => str(r.country_code),
      match: { column: 'country_code', normalise: (v) => (/^[A-Za-z]{2}$/.test(v.trim()) ? v.trim().toUpperCase() : null) },
    },
    { id: 'location', name: 'Location', description: '"<latitude> <longitude>" in decimal degrees', values: (r) => str(r.location) },
    coordinate('latitude', 'Latitude', 0),
    coordinate('longitude', 'Longitude', 1),
    GND,
    {
      id: 'geonames',
      name: 'GeoNames',
      description: 'Identifier in GeoNames (https://sws.geonames.org/…/)',
      values: (r) => str(r.geonames),
      match: { column: 'geonames', normalise: checked(GEONAMES_ID), identifies: true },
    },
    COMMENT,
  ],
  keywords: [NAME, GND],
};

export function propertyOf(kind: ReconcileKind, id: string): PropertyDef | undefined {
  return PROPERTIES[kind].find((p) => p.id === id);
}
