// The reconciliation batches as the services read them (reconcile/batch.ts, extend.ts,
// v1/match.ts), field by field. These parsers read by hand, to answer each query of a 0.2 batch
// on its own, so their description is written out here: the named exception to "the valibot
// schema the handler parses with".
import { MAX_ID_TEXT, MAX_PROPERTIES, MAX_QUERY_LENGTH, TYPE_STRICT } from '../../domain/catalog/reconcile/batch.js';
import { MAX_EXTEND_IDS, MAX_ID_LENGTH } from '../../domain/catalog/reconcile/extend.js';
import { propertiesOf, type ReconcileKind } from '../../domain/catalog/reconcile/entities.js';
import { MAX_ASKED_LIMIT, MAX_LIMIT, MAX_QUERIES } from '../../domain/catalog/reconcile/input.js';
import type { Schema } from '../route.js';

/** A text the parsers clean (NFKC, spaces folded): no control characters, at most `max`. */
const text = (max: number, description?: string): Schema => ({
  type: 'string',
  maxLength: max,
  pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]*$',
  ...(description ? { description } : {}),
});

/** A property's value: a string, a number, or a reconciled value `{"id"}` (by its id). */
const VALUE: Schema = {
  anyOf: [
    text(MAX_QUERY_LENGTH),
    { type: 'number' },
    {
      type: 'object',
      properties: { id: text(MAX_QUERY_LENGTH), name: { type: 'string', maxLength: MAX_QUERY_LENGTH } },
      required: ['id'],
    },
  ],
};

const VALUES: Schema = { anyOf: [VALUE, { type: 'array', items: VALUE, maxItems: 20 }] };

const LIMIT: Schema = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_ASKED_LIMIT,
  description: `candidates to answer (at most ${MAX_LIMIT} are)`,
};

/** A query's property filters: `[{"pid", "v"}]`. */
const PROPERTIES: Schema = {
  type: 'array',
  maxItems: MAX_PROPERTIES,
  items: {
    type: 'object',
    properties: { pid: { type: 'string', minLength: 1, maxLength: MAX_ID_TEXT }, v: VALUES },
    required: ['pid', 'v'],
  },
};

/**
 * 0.2's query: a name, properties, or both (`{"query", "type", "limit", "properties"}`); as two
 * disjoint alternatives (a `query`, or none and at least one property) a generator types as a union.
 */
const QUERY: Schema = {
  type: 'object',
  properties: {
    query: text(MAX_QUERY_LENGTH, 'the name to reconcile'),
    type: {
      anyOf: [
        { type: 'string', maxLength: MAX_ID_TEXT },
        { type: 'array', items: { type: 'string', maxLength: MAX_ID_TEXT }, maxItems: 20 },
      ],
    },
    limit: LIMIT,
    type_strict: { enum: [...TYPE_STRICT], type: 'string', description: 'accepted and ignored' },
    properties: PROPERTIES,
  },
  oneOf: [
    { properties: { query: { type: 'string', maxLength: MAX_QUERY_LENGTH } }, required: ['query'] },
    {
      properties: { properties: { ...PROPERTIES, minItems: 1 } },
      required: ['properties'],
      not: { properties: { query: true }, required: ['query'] },
    },
  ],
};

/** 0.2: `{"q0": query, …}`. */
export const BATCH: Schema = {
  type: 'object',
  additionalProperties: QUERY,
  maxProperties: MAX_QUERIES,
  description: 'a query batch: `{"q0": {"query": …}, …}`',
};

/** 0.2 and 1.0-draft data extension: `{"ids": […], "properties": [{"id"}]}`, of `kind`'s properties. */
export const extendOf = (kind: ReconcileKind): Schema => ({
  type: 'object',
  properties: {
    ids: { type: 'array', maxItems: MAX_EXTEND_IDS, items: { type: 'string', maxLength: MAX_ID_LENGTH } },
    properties: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        properties: {
          id: {
            enum: propertiesOf(kind).map((p) => p.id),
            type: 'string',
            description: "a property the manifest's propose service offers",
          },
          settings: { type: 'object', description: 'accepted and ignored: no settings are offered' },
        },
        required: ['id'],
      },
    },
  },
  required: ['ids', 'properties'],
  description: 'a data extension query: `{"ids": […], "properties": [{"id"}]}`',
});

const CONDITION_TEXT = {
  lang: { type: 'string', maxLength: 64 },
  dir: { enum: ['ltr', 'rtl', 'auto'], type: 'string' },
};

/** A 1.0-draft condition: a name (one string), an entity id, or a property value (of a `propertyId`). */
const CONDITION: Schema = {
  type: 'object',
  properties: {
    matchType: { enum: ['name', 'id', 'property'], type: 'string' },
    propertyId: { type: 'string', minLength: 1, maxLength: MAX_ID_TEXT, description: 'with matchType `property`' },
    propertyValue: VALUES,
    required: { type: 'boolean' },
    matchQuantifier: { const: 'any' },
    matchQualifier: { type: 'string', maxLength: MAX_ID_TEXT },
    ...CONDITION_TEXT,
  },
  required: ['matchType', 'propertyValue'],
  oneOf: [
    {
      properties: { matchType: { const: 'name' }, propertyValue: text(MAX_QUERY_LENGTH, 'the name') },
      required: ['matchType'],
    },
    { properties: { matchType: { const: 'id' } }, required: ['matchType'] },
    { properties: { matchType: { const: 'property' } }, required: ['matchType', 'propertyId'] },
  ],
};

/** Of `matchType`, at least two conditions. */
const twice = (matchType: string): Schema => ({
  contains: { properties: { matchType: { const: matchType } } },
  minContains: 2,
});

/** 1.0-draft: `{"queries": [{"conditions": […], "type", "limit"}, …]}`, refused whole if any query is bad. */
export const MATCH: Schema = {
  type: 'object',
  properties: {
    queries: {
      type: 'array',
      maxItems: MAX_QUERIES,
      items: {
        type: 'object',
        properties: {
          conditions: {
            type: 'array',
            items: CONDITION,
            minItems: 1,
            maxItems: MAX_PROPERTIES + 2,
            // At most one name condition and one id condition.
            not: { anyOf: [twice('name'), twice('id')] },
          },
          type: { type: 'string', maxLength: MAX_ID_TEXT },
          limit: LIMIT,
          ...CONDITION_TEXT,
        },
        required: ['conditions'],
        additionalProperties: false,
      },
    },
  },
  required: ['queries'],
};
