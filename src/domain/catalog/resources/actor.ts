// Actors: persons and organisations (docs/http-api.md).
import { oneOf } from '../../../validation.js';
import { GND_ID, isStringRecord, LABEL_MAP, name, PARTIAL_DATE, SIKART_ID, text } from '../fields.js';
import { ALTERNATIVE_NAMES, checked, COMMENT, GND, NAME, textProperty } from '../reconcile/properties.js';
import { textOf, typeIdIn, typeRefs } from '../reconcile/projection.js';
import { DERIVED_FIELDS, field, READ_ONLY } from '../record-schema.js';
import { ACTORS_TEI } from '../tei/document.js';
import { idColumn, jsonOf, lowered, optionalText, textColumn } from './columns.js';
import { NAME_FORM_COLUMNS, NAME_FORM_FIELDS, type NameForms } from './name-forms.js';
import { defineResource } from './resource.js';

export const ACTOR_TYPES = ['person', 'family', 'corporate_body', 'organisational_unit', 'group', 'software'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export const ACTOR_BEACON_PROVIDERS = ['gnd', 'sikart'] as const;

/** The reconciliation types: an actor is of its `type`. */
const TYPES = typeRefs(ACTOR_TYPES);

export interface Actor extends NameForms {
  id: number;
  type: ActorType;
  name: string;
  label: Record<string, string> | null;
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
    ...NAME_FORM_COLUMNS,
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
    ...NAME_FORM_FIELDS,
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
    sortColumns: { name: 'name_lower' },
  },
  select2: (a: Actor) => a.name,
  api: { list: 'authority', record: true, create: true, update: 'PUT' },
  beacon: { providers: ACTOR_BEACON_PROVIDERS, name: 'archivectl actors' },
  tei: ACTORS_TEI,
  reconcile: {
    types: TYPES,
    typeColumn: 'type',
    columns: ['id', 'name', 'alternative_names', 'type', 'date_start', 'date_end', 'comment', 'gnd'],
    alternativeNames: 'alternative_names',
    view: true,
    describe: (row, [type]) => {
      const [start, end] = [textOf(row.date_start), textOf(row.date_end)];
      return `${type?.name ?? ''}${start || end ? `, ${start ?? ''}–${end ?? ''}` : ''}`;
    },
    properties: [
      NAME,
      {
        ...textProperty('type', 'Type', `${ACTOR_TYPES.slice(0, -1).join(', ')} or ${ACTOR_TYPES.at(-1)}`, {
          normalise: (v) => typeIdIn(TYPES, v),
        }),
        // In the description already.
        inPreview: false,
      },
      ALTERNATIVE_NAMES,
      textProperty('date_start', 'Start date', 'Birth or founding: YYYY, YYYY-MM or YYYY-MM-DD', {
        normalise: checked(PARTIAL_DATE),
      }),
      textProperty('date_end', 'End date', 'Death or dissolution: YYYY, YYYY-MM or YYYY-MM-DD', {
        normalise: checked(PARTIAL_DATE),
      }),
      GND,
      COMMENT,
    ],
  },
});
