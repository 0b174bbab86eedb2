// Actors: persons and organisations (SPEC §4.4).
import { GND_ID, isStringArray, isStringRecord, LABEL_MAP, NAME_LIST, name, oneOf, PARTIAL_DATE, SIKART_ID, text } from '../fields.js';
import { DERIVED_FIELDS, field, READ_ONLY } from '../record-schema.js';
import { idColumn, jsonOf, lowered, optionalText, textColumn } from './columns.js';
import { defineResource } from './resource.js';

export const ACTOR_TYPES = ['person', 'family', 'corporate_body', 'organisational_unit', 'group', 'software'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export const ACTOR_BEACON_PROVIDERS = ['gnd', 'sikart'] as const;

export interface Actor {
  id: number;
  type: ActorType;
  name: string;
  label: Record<string, string> | null;
  alternative_names: string[] | null;
  variants: string[] | null;
  abbreviations: string[] | null;
  date_start: string | null;
  date_end: string | null;
  comment: string | null;
  gnd: string | null;
  sikart: string | null;
  created_at: string;
  updated_at: string;
}

export const ACTOR = defineResource({
  table: 'actors',
  what: 'actor',
  columns: {
    id: idColumn,
    type: textColumn<ActorType>(),
    name: lowered(textColumn(), 'name_lower'),
    label: jsonOf(isStringRecord),
    alternative_names: jsonOf(isStringArray),
    variants: jsonOf(isStringArray),
    abbreviations: jsonOf(isStringArray),
    date_start: optionalText,
    date_end: optionalText,
    comment: optionalText,
    gnd: optionalText,
    sikart: optionalText,
    created_at: textColumn(),
    updated_at: textColumn(),
  },
  fields: {
    type: field(oneOf(ACTOR_TYPES)),
    name: field(name(255), { required: true }),
    label: field(LABEL_MAP, { nullable: true }),
    alternative_names: field(NAME_LIST, { nullable: true }),
    variants: field(NAME_LIST, { nullable: true }),
    abbreviations: field(NAME_LIST, { nullable: true }),
    date_start: field(PARTIAL_DATE, { nullable: true }),
    date_end: field(PARTIAL_DATE, { nullable: true }),
    comment: field(text(65_535, 0), { nullable: true }),
    gnd: field(GND_ID, { nullable: true }),
    sikart: field(SIKART_ID, { nullable: true }),
  },
  readOnly: [...READ_ONLY, ...DERIVED_FIELDS],
  insertDefaults: { type: 'person' },
  list: {
    sortFields: ['id', 'name', 'type', 'date_start', 'date_end', 'created_at', 'updated_at'],
    formats: ['json', 'select2', 'beacon'],
    search: ['name_lower'],
    // Names sort case-insensitively on both dialects (PostgreSQL's collation and SQLite's
    // binary order differ on `name`).
    sortColumns: { name: 'name_lower' },
  },
  select2: (a: Actor) => a.name,
  beacon: { providers: ACTOR_BEACON_PROVIDERS, name: 'archivectl actors' },
});
