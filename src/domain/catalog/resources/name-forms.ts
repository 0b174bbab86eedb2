// The other forms of a name that actors and places keep (docs/http-api.md; variants and abbreviations
// are Anton's): lists of names, stored as JSON, each one exported to TEI as a typed name.
import { isStringArray, NAME_LIST } from '../fields.js';
import { field } from '../record-schema.js';
import { jsonOf } from './columns.js';

export interface NameForms {
  alternative_names: string[] | null;
  variants: string[] | null;
  abbreviations: string[] | null;
}

export const NAME_FORM_COLUMNS = {
  alternative_names: jsonOf(isStringArray),
  variants: jsonOf(isStringArray),
  abbreviations: jsonOf(isStringArray),
};

export const NAME_FORM_FIELDS = {
  alternative_names: field(NAME_LIST, { nullable: true }),
  variants: field(NAME_LIST, { nullable: true }),
  abbreviations: field(NAME_LIST, { nullable: true }),
};
