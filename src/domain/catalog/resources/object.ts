// Archive objects (docs/http-api.md): read-only over HTTP; created by SIP imports and `catalog load`,
// with their keywords (a join table, not a column).
import { oneOf } from '../../../validation.js';
import { name, nameList, text } from '../fields.js';
import { field, READ_ONLY } from '../record-schema.js';
import { idColumn, lowered, optionalText, textColumn } from './columns.js';
import { defineResource } from './resource.js';

export const OBJECT_STATUSES = ['ingesting', 'ingested', 'failed'] as const;
export type ObjectStatus = (typeof OBJECT_STATUSES)[number];

/** An object's row; the API's object adds its keywords (objects.ts). */
export interface ObjectRecord {
  id: number;
  identifier: string;
  title: string | null;
  status: ObjectStatus;
  created_at: string;
}

export const OBJECT = defineResource({
  table: 'objects',
  what: 'object',
  columns: {
    id: idColumn,
    identifier: lowered(textColumn(), 'identifier_lower'),
    title: lowered(optionalText, 'title_lower'),
    status: textColumn<ObjectStatus>(),
    created_at: textColumn(),
  },
  fields: {
    identifier: field(name(255), { required: true }),
    title: field(text(1024), { nullable: true }),
    status: field(oneOf(OBJECT_STATUSES)),
    keywords: field(nameList(1000, 'must be an array of keyword names'), { nullable: true }),
  },
  readOnly: READ_ONLY,
  list: {
    sortFields: ['id', 'identifier', 'title', 'status', 'created_at'],
    formats: ['json', 'select2'],
    searchMax: 1024,
    search: ['title_lower', 'identifier_lower'],
    sortColumns: { identifier: 'identifier_lower', title: 'title_lower' },
  },
  select2: (o: ObjectRecord) => o.title ?? o.identifier,
  api: { list: 'token_or_public_api' },
});
