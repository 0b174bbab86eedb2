// The shared parts of the description: the error body, the envelopes, the records as the API
// answers them and the bodies it reads, each derived from the resource's description
// (domain/catalog/resources/) and its valibot field schemas.
import { AUTHORITY_TYPES } from '../../domain/catalog/anton/fields.js';
import { ANTON_INPUT, ANTON_SAME_FIELD } from '../../domain/catalog/anton/input.js';
import { RESOURCES, type AnyResource } from '../../domain/catalog/resources/index.js';
import { EXACT_TOTAL_LIMIT, MAX_PER_PAGE } from '../../domain/catalog/list/query.js';
import { SCHEMAS as USAGE } from '../../domain/catalog/ai-usage.js';
import { closed, recordName, ref } from '../route.js';
import * as answers from '../../domain/catalog/reconcile/answers.js';
import * as draft from '../../domain/catalog/reconcile/v1/answers.js';
import { componentSchemas, jsonSchemaOf, orNull, type Schema } from './json-schema.js';

const SLUG = '[a-z0-9][a-z0-9_]{0,31}';
const fullId = (register: string): Schema => ({
  type: 'string',
  pattern: `^${SLUG}-${register}-[1-9][0-9]{0,15}$`,
  description: `Anton's id: \`<slug>-${register}-<id>\` (the slug has no \`-\`), as written into TEI \`@ref\` attributes`,
});

/** Anton's derived fields (anton/fields.ts): answered, never stored, ignored when sent back. */
const DERIVED: Record<string, Record<string, Schema>> = {
  actors: {
    full_id: fullId('actors'),
    fullname: { type: 'string', maxLength: 255, description: "Anton's name of `name`" },
    authority_type: { enum: AUTHORITY_TYPES.map((t) => t.code), type: 'string', description: "Anton's name of `type`" },
  },
  places: {
    full_id: fullId('places'),
    country: { type: ['string', 'null'], maxLength: 255, description: 'the English name of `country_code`' },
  },
  keywords: { full_id: fullId('keywords') },
};

const SERVER_SET: Record<string, Schema> = {
  id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  created_at: { type: 'string', format: 'date-time', maxLength: 35 },
  updated_at: { type: 'string', format: 'date-time', maxLength: 35 },
};

/** A record as the API answers it: its columns and fields, then Anton's derived fields. */
function recordSchema(r: AnyResource): Schema {
  const properties: Record<string, Schema> = {};
  for (const key of new Set([...Object.keys(r.columns), ...Object.keys(r.fields)])) {
    const own = SERVER_SET[key];
    if (own) {
      properties[key] = { ...own, readOnly: true };
      continue;
    }
    const field = r.fields[key];
    const column = r.columns[key] as { nullable?: boolean; write?: unknown } | undefined;
    // Stored text is answered without the request's patterns (`catalog load` and earlier releases stored it).
    const { pattern: _, ...schema } = field ? jsonSchemaOf(field.schema) : {};
    // JSON columns (`write`) and optional text may hold null, as may nullable fields.
    const nullable = field?.nullable === true || column?.nullable === true || column?.write !== undefined;
    properties[key] = nullable ? orNull(schema) : schema;
  }
  for (const [key, schema] of Object.entries(DERIVED[r.table] ?? {})) properties[key] = { ...schema, readOnly: true };
  return closed(properties);
}

/** Anton's derived fields of every resource: a body may send back another resource's too (ignored). */
const ANY_DERIVED: Record<string, Schema> = Object.assign({}, ...Object.values(DERIVED)) as Record<string, Schema>;

/** Blank or null: a label entry that names nothing. */
const BLANK = { anyOf: [{ type: 'null' }, { type: 'string', maxLength: 255, pattern: '^\\s*$' }] };

/**
 * `name` or a label to take it from, as two disjoint alternatives a generator types as a union:
 * `name` given, or no `name` and a label with a name that is not blank (anton/input.ts).
 */
function nameOrLabel(name: Schema, label: Schema): Schema {
  const values = (label.additionalProperties ?? {}) as Schema;
  return {
    oneOf: [
      { properties: { name: { type: 'string', maxLength: name.maxLength } }, required: ['name'] },
      {
        properties: {
          label: {
            type: 'object',
            additionalProperties: { type: values.type, maxLength: values.maxLength },
            not: { additionalProperties: BLANK },
            description:
              'without `name`: a label with a name that is not blank, taken as the name (de, en, fr, it first)',
          },
        },
        required: ['label'],
        // No `name`: the label gives it.
        not: { properties: { name: true }, required: ['name'] },
      },
    ],
  };
}

/** A create or change body: the field table, unknown fields refused, read-only fields ignored. */
function inputSchema(r: AnyResource, mode: 'create' | 'update'): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(r.fields)) {
    const schema = jsonSchemaOf(field.schema);
    properties[key] = field.nullable ? orNull(schema) : schema;
    if (mode === 'create' && field.required) required.push(key);
  }
  // A record sent back as read: its read-only fields are accepted and ignored.
  const record = recordSchema(r).properties as Record<string, Schema>;
  for (const key of r.readOnly) {
    const { readOnly: _, ...asRead } = record[key] ?? ANY_DERIVED[key] ?? {};
    properties[key] = { ...asRead, description: 'read-only: accepted and ignored (a record sent back as read)' };
  }
  // A rule between two fields, which JSON Schema cannot state: said in words.
  if (properties.date_end && properties.date_start)
    properties.date_end = {
      ...properties.date_end,
      description: 'a date: YYYY, YYYY-MM or YYYY-MM-DD, not before `date_start`',
    };
  const table = r.table === 'actors' || r.table === 'places' ? r.table : null;
  const anton = table ? ANTON_INPUT[table] : {};
  for (const [key, schema] of Object.entries(anton)) properties[key] = schema;
  // Anton's bodies may give `label` alone: the name is taken from it.
  const byLabel = table !== null && required.includes('name');
  const own = byLabel ? required.filter((k) => k !== 'name') : required;
  // One name of a field: both given must agree, which a schema cannot say; described, one excludes the other.
  const pairs = table ? ANTON_SAME_FIELD[table] : [];
  return {
    type: 'object',
    properties,
    ...(own.length > 0 ? { required: own } : {}),
    ...(byLabel ? nameOrLabel(properties.name ?? {}, properties.label ?? {}) : {}),
    ...(pairs.length > 0
      ? { dependentSchemas: Object.fromEntries(pairs.map(([a, b]) => [a, { properties: { [b]: false } }])) }
      : {}),
    additionalProperties: false,
    description: 'Unknown fields are refused (422 `unknown field`); every problem is named in `fields`.',
  };
}

/** A JSON value as the form parser gives it: text (a number's digits, a boolean's word), never null. */
function formValue(s: Schema): Schema | null {
  const types = ([] as unknown[]).concat(s.type ?? []).filter((t) => t !== 'null');
  const enumText = Array.isArray(s.enum) ? s.enum.filter((x) => x !== null).map(String) : undefined;
  const { format: _, minimum: _min, maximum: _max, ...rest } = s;
  if (enumText !== undefined) return enumText.length > 0 ? { ...rest, type: 'string', enum: enumText } : null;
  if (types.length === 0) return null;
  if (types.includes('string')) return { ...rest, type: 'string' };
  if (types.includes('integer')) return { ...rest, type: 'string', pattern: '^[0-9]{1,16}$' };
  if (types.includes('array')) {
    const items = formValue((s.items ?? {}) as Schema);
    return items && { ...rest, type: 'array', items };
  }
  if (types.includes('object')) {
    const values = formValue((s.additionalProperties ?? {}) as Schema);
    return values && { ...rest, type: 'object', additionalProperties: values };
  }
  return null;
}

/**
 * A body's fields as a urlencoded form sends them: the same names (unknown ones refused), text
 * where the field is text; objects and arrays by bracketed names (`label[de]=…`,
 * `variants[]=…`), as the form parser (qs) reads them; a field only null may hold is left out.
 */
function formOf(schema: Schema): Schema {
  const properties = Object.fromEntries(
    Object.entries(schema.properties as Record<string, Schema>).flatMap(([key, s]) => {
      const value = formValue(s);
      return value ? [[key, value]] : [];
    }),
  );
  // The alternatives of name or label, with the label's values as the form gives them (text).
  const oneOf = schema.oneOf ? nameOrLabel(properties.name ?? {}, properties.label ?? {}) : {};
  return { ...schema, properties, ...oneOf };
}

function usageSchema(): Schema {
  const schema = jsonSchemaOf(USAGE.json);
  const required = (schema.required as string[] | undefined) ?? [];
  const properties: Record<string, Schema> = {};
  for (const [k, s] of Object.entries(schema.properties as Record<string, Schema>))
    properties[k] = required.includes(k) ? s : orNull(s);
  return {
    ...schema,
    properties,
    additionalProperties: false,
    description: 'Unknown fields are refused (422 `unknown field`); an optional field given as null or "" is absent.',
  };
}

const LIST_META = closed(
  {
    page: { type: 'integer', minimum: 1 },
    perPage: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE },
    total: {
      type: 'integer',
      minimum: 0,
      description: `exact, or (with \`total_exact: false\`) a lower bound: a filtered list counts up to ${EXACT_TOTAL_LIMIT}`,
    },
    total_exact: { const: false },
    next_cursor: {
      type: ['string', 'null'],
      description: "with `cursor`: the next page's cursor, null after the last",
    },
  },
  'total_exact',
  'next_cursor',
);

const ERROR = closed(
  {
    error: { type: 'string', minLength: 1, description: 'what went wrong, in words' },
    fields: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: "a 422's problems by field (dotted paths, e.g. `label`, `actors[3].name`)",
    },
  },
  'fields',
);

const SELECT2 = closed({
  results: { type: 'array', items: closed({ id: { type: 'integer' }, text: { type: 'string' } }) },
  pagination: closed({ more: { type: 'boolean' } }),
});

const SUBMISSION = closed({
  id: { type: 'integer', minimum: 1 },
  status: { enum: ['received', 'confirmed', 'failed'], type: 'string' },
  object_id: { type: 'integer', minimum: 1 },
});

/** `{data: […], meta}`. */
const listOf = (schema: Schema): Schema => closed({ data: { type: 'array', items: schema }, meta: ref('ListMeta') });

export function schemas(): Record<string, Schema> {
  const out: Record<string, Schema> = {
    Error: ERROR,
    ListMeta: LIST_META,
    Select2: SELECT2,
    Submission: SUBMISSION,
    UsageInput: usageSchema(),
  };
  for (const r of RESOURCES) {
    const name = recordName(r.what);
    out[name] = recordSchema(r);
    out[`${name}List`] = listOf(ref(name));
    for (const mode of ['create', 'update'] as const) {
      const body = `${name}${mode === 'create' ? 'Create' : 'Change'}`;
      out[body] = inputSchema(r, mode);
      out[`${body}Form`] = formOf(inputSchema(r, mode));
    }
  }
  return out;
}

// The documents the reconciliation services answer (Reconciliation API 0.2 and 1.0-draft), from
// the valibot schemas their answers are inferred from (reconcile/answers.ts, v1/answers.ts).
/** The documents, by their component names (shared parts first: the others refer to them). */
export const reconcileSchemas = (): Record<string, Schema> =>
  componentSchemas({
    ReconcileType: answers.TYPE_REF,
    ReconcileValue: answers.PROPERTY_VALUE,
    ReconcileCandidate: answers.CANDIDATE,
    ReconcileSecurityScheme: answers.SECURITY_SCHEME,
    ReconcileManifest: answers.MANIFEST,
    ReconcileResults: answers.RESULT_BATCH,
    ReconcileExtension: answers.EXTENSION,
    ReconcilePropertyProposal: answers.PROPERTY_PROPOSAL,
    ReconcileSuggestedEntities: answers.SUGGESTED_ENTITIES,
    ReconcileSuggestedProperties: answers.SUGGESTED_PROPERTIES,
    ReconcileSuggestedTypes: answers.SUGGESTED_TYPES,
    ReconcileDraftManifest: draft.DRAFT_MANIFEST,
    ReconcileDraftResults: draft.DRAFT_RESULTS,
    ReconcileDraftExtension: draft.DRAFT_EXTENSION,
  });
