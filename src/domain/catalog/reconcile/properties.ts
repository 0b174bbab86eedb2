// The properties the resources offer the reconciliation services (their projections in
// resources/ name them): what each returns for a record, and how a query's values of it
// (`properties: [{pid, v}]`) are compared with the record.
import { isStringArray } from '../json-values.js';
import { GND_ID, valueOr } from '../fields.js';
import type { ValueSchema } from '../record-schema.js';
import type { PropertyDef, PropertyMatch, PropertyValue, Row } from './projection.js';
import { parseJsonColumn } from '../resources/columns.js';

const str = (v: unknown): PropertyValue[] => (typeof v === 'string' && v ? [{ str: v }] : []);

/** A value checked against the field's schema: a malformed one matches nothing. */
export const checked = (schema: ValueSchema<string>) => (value: string) => valueOr(schema, value.trim());
/** A value compared as given (trimmed). */
export const exact = (value: string) => value.trim() || null;

/** The text of the column `id`; `match` (without its column) makes it one a query may filter by. */
export function textProperty(
  id: string,
  name: string,
  description: string,
  match?: Omit<PropertyMatch, 'column'>,
): PropertyDef {
  return { id, name, description, values: (r) => str(r[id]), ...(match ? { match: { column: id, ...match } } : {}) };
}

export const namesIn = (row: Row, column: string): string[] => parseJsonColumn(row[column], isStringArray) ?? [];

/** The preferred name: the preview's heading. */
export const NAME: PropertyDef = { ...textProperty('name', 'Name', 'The preferred name'), inPreview: false };

export const ALTERNATIVE_NAMES: PropertyDef = {
  id: 'alternative_names',
  name: 'Alternative names',
  description: 'Other names and spellings (one value each)',
  values: (r) => namesIn(r, 'alternative_names').map((s) => ({ str: s })),
};

export const COMMENT = textProperty('comment', 'Comment', 'Free-text note');

/** An authority identifier: a query that gives it names the entity. */
export function authorityProperty(
  id: string,
  name: string,
  description: string,
  schema: ValueSchema<string>,
  link: (id: string) => string,
): PropertyDef {
  return { ...textProperty(id, name, description, { normalise: checked(schema), identifies: true }), link };
}

export const GND = authorityProperty(
  'gnd',
  'GND',
  'Identifier in the Gemeinsame Normdatei (https://d-nb.info/gnd/…)',
  GND_ID,
  (id) => `https://d-nb.info/gnd/${encodeURIComponent(id)}`,
);

/** One of the two numbers of the location ("47.37 8.54"), as a number (the preview shows it). */
export function coordinateProperty(id: string, name: string, index: 0 | 1): PropertyDef {
  return {
    id,
    name,
    description: 'Decimal degrees, from the location',
    values: (r) => {
      const parts = typeof r.location === 'string' ? r.location.trim().split(/\s+/).map(Number) : undefined;
      return parts?.length === 2 && parts.every(Number.isFinite) ? [{ float: parts[index] as number }] : [];
    },
    inPreview: false,
  };
}
