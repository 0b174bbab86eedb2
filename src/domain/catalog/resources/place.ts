// Places (SPEC §4.4).
import { COUNTRY_CODE, isStringArray, isStringRecord, GEONAMES_ID, GND_ID, LABEL_MAP, LOCATION, NAME_LIST, name, text, WIKIPEDIA_URL } from '../fields.js';
import { DERIVED_FIELDS, field, READ_ONLY } from '../record-schema.js';
import { idColumn, jsonOf, lowered, optionalText, textColumn } from './columns.js';
import { defineResource } from './resource.js';

export const PLACE_BEACON_PROVIDERS = ['gnd', 'geonames', 'wikipedia'] as const;

export interface Place {
  id: number;
  name: string;
  label: Record<string, string> | null;
  city: string | null;
  state: string | null;
  address: string | null;
  country_code: string | null;
  location: string | null;
  alternative_names: string[] | null;
  variants: string[] | null;
  abbreviations: string[] | null;
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
    alternative_names: jsonOf(isStringArray),
    variants: jsonOf(isStringArray),
    abbreviations: jsonOf(isStringArray),
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
    alternative_names: field(NAME_LIST, { nullable: true }),
    variants: field(NAME_LIST, { nullable: true }),
    abbreviations: field(NAME_LIST, { nullable: true }),
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
  beacon: { providers: PLACE_BEACON_PROVIDERS, name: 'archivectl places' },
});
