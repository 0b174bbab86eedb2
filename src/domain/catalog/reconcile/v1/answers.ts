// What the Reconciliation API 1.0-draft services answer where it differs from 0.2 (../answers.ts).
import { v } from '../../../../validation.js';
import { CANDIDATE, EXTENSION_META, IFRAME_SIZE, PROPERTY_VALUE, SECURITY_SCHEME, TYPE_REF } from '../answers.js';

export const DRAFT_MANIFEST = v.strictObject({
  versions: v.array(v.literal('1.0-draft')),
  name: v.string(),
  view: v.strictObject({
    url: v.pipe(v.string(), v.regex(/\{id\}/), v.description("an RFC 6570 template of an entity's page")),
  }),
  defaultTypes: v.array(TYPE_REF),
  preview: v.strictObject(IFRAME_SIZE),
  suggest: v.strictObject({ entity: v.boolean(), property: v.boolean(), type: v.boolean() }),
  extend: v.strictObject({
    proposeProperties: v.boolean(),
    propertySettings: v.pipe(v.array(v.never()), v.description('none: no property takes settings')),
  }),
  batchSize: v.pipe(v.number(), v.integer(), v.minValue(1)),
  standardizedScore: v.pipe(v.boolean(), v.description('true: scores are 0 to 100')),
  authentication: v.optional(SECURITY_SCHEME),
});

/** `{results: [{candidates: […]}, …]}`, in the order of the batch's queries. */
export const DRAFT_RESULTS = v.strictObject({
  results: v.array(v.strictObject({ candidates: v.array(CANDIDATE) })),
});

/** `{meta: [property], rows: [{id, properties: [{id, values}]}]}`, in the order asked for. */
export const DRAFT_EXTENSION = v.strictObject({
  meta: EXTENSION_META,
  rows: v.array(
    v.strictObject({
      id: v.string(),
      properties: v.array(v.strictObject({ id: v.string(), values: v.array(PROPERTY_VALUE) })),
    }),
  ),
});
