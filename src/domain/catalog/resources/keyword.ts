// Keywords (docs/http-api.md): read-only over HTTP; created by `catalog load` and by SIP imports. A
// keyword is unique by its case-insensitive name (the `name_lower` unique index).
import { GND_ID, isStringRecord, LABEL_MAP, name } from '../fields.js';
import { GND, NAME } from '../reconcile/properties.js';
import { field, READ_ONLY } from '../record-schema.js';
import { KEYWORDS_TEI } from '../tei/document.js';
import { idColumn, jsonOf, lowered, optionalText, textColumn } from './columns.js';
import { defineResource } from './resource.js';

export interface Keyword {
  id: number;
  name: string;
  label: Record<string, string> | null;
  gnd: string | null;
}

export const KEYWORD = defineResource({
  table: 'keywords',
  what: 'keyword',
  columns: {
    id: idColumn,
    name: lowered(textColumn(), 'name_lower'),
    label: jsonOf(isStringRecord),
    gnd: optionalText,
  },
  fields: {
    name: field(name(255), { required: true }),
    label: field(LABEL_MAP, { nullable: true }),
    gnd: field(GND_ID, { nullable: true }),
  },
  readOnly: READ_ONLY,
  list: {
    // `label` is Anton's name for the keyword sort (openapi.yaml: sortField id|label): the name.
    sortFields: ['id', 'name', 'label', 'created_at', 'updated_at'],
    formats: ['json', 'select2'],
    search: ['name_lower'],
    sortColumns: { name: 'name_lower', label: 'name_lower' },
  },
  select2: (k: Keyword) => k.name,
  api: { list: 'authority' },
  tei: KEYWORDS_TEI,
  // Keywords have no page of their own, and no other names.
  reconcile: {
    types: [{ id: 'keyword', name: 'Keyword' }],
    columns: ['id', 'name', 'gnd'],
    view: false,
    properties: [NAME, GND],
  },
});
