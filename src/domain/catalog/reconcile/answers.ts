// What the Reconciliation API 0.2 services answer, as valibot schemas from which the services' types and the
// served description derive; each a closed subset of the W3C 0.2 schema of its document.
import { v } from '../../../validation.js';

const text = (description: string) => v.pipe(v.string(), v.description(description));
const size = (description: string) => v.pipe(v.number(), v.integer(), v.minValue(1), v.description(description));

export const TYPE_REF = v.strictObject({ id: text('the type id'), name: text('its name') });
export type TypeRef = v.InferOutput<typeof TYPE_REF>;

/** A value in a data extension answer: the register's properties are text and numbers. */
export const PROPERTY_VALUE = v.union([v.strictObject({ str: v.string() }), v.strictObject({ float: v.number() })]);
export type PropertyValue = v.InferOutput<typeof PROPERTY_VALUE>;

export const CANDIDATE = v.strictObject({
  id: text("the entity's id: its row id, as a string"),
  name: text('its preferred name'),
  score: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(0),
    v.maxValue(100),
    v.description('0 to 100 (100: the name, or an identifying property, matches exactly)'),
  ),
  match: v.pipe(v.boolean(), v.description('true only for the one exact match of a name')),
  type: v.array(TYPE_REF),
  description: v.optional(text('a short line that tells namesakes apart')),
});
export type Candidate = v.InferOutput<typeof CANDIDATE>;

/** `{"q0": {"result": [candidate, …]}, …}`: each query of the batch under its key. */
export const RESULT_BATCH = v.record(
  v.string(),
  v.strictObject({
    result: v.array(CANDIDATE),
    error: v.optional(text('why the query could not be used (its `result` is then empty)')),
  }),
);
export type ReconcileAnswer = v.InferOutput<typeof RESULT_BATCH>;

const SERVICE_AT = v.strictObject({ service_url: v.string(), service_path: v.string() });

/** How to send a token, as an OpenAPI (Swagger 2) security scheme; present when queries need one. */
export const SECURITY_SCHEME = v.strictObject({
  type: v.literal('apiKey'),
  in: v.literal('header'),
  name: v.literal('Authorization'),
  description: v.string(),
});

export const IFRAME_SIZE = { width: size('pixels'), height: size('pixels') };

/** Where a URL template takes the entity's id. */
const ID_SLOT = /\{\{id\}\}/;

export const MANIFEST = v.strictObject({
  versions: v.array(v.picklist(['0.1', '0.2'])),
  name: v.string(),
  identifierSpace: text('the URL entity ids are relative to'),
  schemaSpace: text('the URL type ids are relative to'),
  defaultTypes: v.array(TYPE_REF),
  view: v.optional(v.strictObject({ url: v.pipe(v.string(), v.regex(ID_SLOT), v.description("an entity's page")) })),
  preview: v.strictObject({ url: v.pipe(v.string(), v.regex(ID_SLOT)), ...IFRAME_SIZE }),
  suggest: v.strictObject({ entity: SERVICE_AT, property: SERVICE_AT, type: SERVICE_AT }),
  extend: v.strictObject({
    propose_properties: SERVICE_AT,
    property_settings: v.pipe(v.array(v.never()), v.description('none: no property takes settings')),
  }),
  batchSize: size('the most queries in one batch (more: 413)'),
  authentication: v.optional(SECURITY_SCHEME),
});

const PROPERTY = v.strictObject({ id: v.string(), name: v.string(), description: v.string() });

/** GET …/properties (1.0-draft: …/extend/propose). */
export const PROPERTY_PROPOSAL = v.strictObject({
  type: v.optional(text('the type asked for')),
  limit: v.optional(size('the limit asked for')),
  properties: v.array(PROPERTY),
});

export const EXTENSION_META = v.array(v.strictObject({ id: v.string(), name: v.string() }));

/** `{meta: [property], rows: {entity id: {property id: [value]}}}`. */
export const EXTENSION = v.strictObject({
  meta: EXTENSION_META,
  rows: v.record(v.string(), v.record(v.string(), v.array(PROPERTY_VALUE))),
});
export type ExtendAnswer = v.InferOutput<typeof EXTENSION>;

export const SUGGESTED_ENTITIES = v.strictObject({
  result: v.array(
    v.strictObject({
      id: v.string(),
      name: v.string(),
      description: v.optional(v.string()),
      notable: v.pipe(v.array(TYPE_REF), v.description("the entity's types")),
    }),
  ),
});

export const SUGGESTED_PROPERTIES = v.strictObject({ result: v.array(PROPERTY) });

export const SUGGESTED_TYPES = v.strictObject({ result: v.array(TYPE_REF) });
