// Places (docs/http-api.md).
import { COUNTRY_CODE, GEONAMES_ID, GND_ID, LABEL_MAP, LOCATION, name, text, WIKIPEDIA_URL } from '../fields.js';
import { isStringRecord } from '../json-values.js';
import {
  ALTERNATIVE_NAMES,
  authorityProperty,
  COMMENT,
  coordinateProperty,
  exact,
  GND,
  NAME,
  textProperty,
} from '../reconcile/properties.js';
import { textOf } from '../reconcile/projection.js';
import { DERIVED_FIELDS, field, READ_ONLY } from '../record-schema.js';
import { PLACES_TEI } from '../tei/document.js';
import { idColumn, jsonOf, lowered, optionalText, textColumn } from './columns.js';
import { NAME_FORM_COLUMNS, NAME_FORM_FIELDS, type NameForms } from './name-forms.js';
import { defineResource } from './resource.js';

export const PLACE_BEACON_PROVIDERS = ['gnd', 'geonames', 'wikipedia'] as const;

export interface Place extends NameForms {
  id: number;
  name: string;
  label: Record<string, string> | null;
  city: string | null;
  state: string | null;
  address: string | null;
  country_code: string | null;
  location: string | null;
  comment: string | null;
  gnd: string | null;
  geonames: string | null;
  wikipedia: string | null;
  created_at: string;
  updated_at: string;
}

export const PLACE = defineResource({
  table: 'places',
  what: 'place',
  columns: {
    id: idColumn,
    name: lowered(textColumn(), 'name_lower'),
    label: jsonOf(isStringRecord),
    city: optionalText,
    state: optionalText,
    address: optionalText,
    country_code: optionalText,
    location: optionalText,
    ...NAME_FORM_COLUMNS,
    comment: optionalText,
    gnd: optionalText,
    geonames: optionalText,
    wikipedia: optionalText,
    created_at: textColumn(),
    updated_at: textColumn(),
  },
  fields: {
    name: field(name(255), { required: true }),
    label: field(LABEL_MAP, { nullable: true }),
    city: field(name(255), { nullable: true }),
    state: field(name(255), { nullable: true }),
    address: field(text(512), { nullable: true }),
    country_code: field(COUNTRY_CODE, { nullable: true }),
    location: field(LOCATION, { nullable: true }),
    ...NAME_FORM_FIELDS,
    comment: field(text(65_535, 0), { nullable: true }),
    gnd: field(GND_ID, { nullable: true }),
    geonames: field(GEONAMES_ID, { nullable: true }),
    wikipedia: field(WIKIPEDIA_URL, { nullable: true }),
  },
  readOnly: [...READ_ONLY, ...DERIVED_FIELDS],
  list: {
    sortFields: ['id', 'name', 'city', 'state', 'country_code', 'created_at', 'updated_at'],
    formats: ['json', 'select2', 'beacon'],
    search: ['name_lower'],
    sortColumns: { name: 'name_lower' },
  },
  select2: (p: Place) => p.name,
  api: { list: 'authority', record: true, create: true, update: 'POST' },
  beacon: { providers: PLACE_BEACON_PROVIDERS, name: 'archivectl places' },
  tei: PLACES_TEI,
  reconcile: {
    types: [{ id: 'place', name: 'Place' }],
    columns: [
      'id',
      'name',
      'alternative_names',
      'city',
      'state',
      'address',
      'country_code',
      'location',
      'comment',
      'gnd',
      'geonames',
    ],
    alternativeNames: 'alternative_names',
    view: true,
    describe: (row) => [textOf(row.city), textOf(row.country_code)].filter(Boolean).join(', ') || undefined,
    properties: [
      NAME,
      ALTERNATIVE_NAMES,
      textProperty('city', 'City', 'City or municipality', { normalise: exact, caseInsensitive: true }),
      textProperty('state', 'State', 'State, canton or region', { normalise: exact, caseInsensitive: true }),
      textProperty('address', 'Address', 'Street address'),
      textProperty('country_code', 'Country', 'ISO 3166-1 alpha-2 country code', {
        normalise: (v) => (/^[A-Za-z]{2}$/.test(v.trim()) ? v.trim().toUpperCase() : null),
      }),
      textProperty('location', 'Location', '"<latitude> <longitude>" in decimal degrees'),
      coordinateProperty('latitude', 'Latitude', 0),
      coordinateProperty('longitude', 'Longitude', 1),
      GND,
      authorityProperty(
        'geonames',
        'GeoNames',
        'Identifier in GeoNames (https://sws.geonames.org/…/)',
        GEONAMES_ID,
        (id) => `https://www.geonames.org/${encodeURIComponent(id)}/`,
      ),
      COMMENT,
    ],
  },
});
