// The data extension service of Reconciliation 0.2 (OpenRefine's "Add columns from reconciled
// values"): property proposals (GET …/properties?type=…) tell what there is; a data extension
// query (`extend` = {"ids": […], "properties": [{"id"}, …]}) fetches the matched records' values.
import { invalid } from '../../../errors.js';
import type { Ctx } from '../../context.js';
import { isPlainObject } from '../json-values.js';
import { optionalParam, shortText, wholeNumber, type QueryInput } from '../list/params.js';
import { parseInput, v } from '../../../validation.js';
import { BatchTooLarge, jsonObjectParam, shortKey } from './input.js';
import { propertiesOf, propertyOf, rowIdOf, rowsByIds, typeIdOf, type ReconcileKind } from './entities.js';
import type { ExtendAnswer, PROPERTY_PROPOSAL } from './answers.js';
import type { PropertyDef, PropertyValue, Row } from './projection.js';

/** The most entities in one data extension request; more is a BatchTooLarge (413). */
export const MAX_EXTEND_IDS = 100;
/** ids → [strings], properties → [objects] → settings → values: 4; a little room, no more. */
export const MAX_EXTEND_DEPTH = 5;
export const MAX_ID_LENGTH = 64;

export const PROPOSE_PARAMS = v.object({
  type: optionalParam(shortText()),
  limit: optionalParam(wholeNumber(1, 1000)),
});

/** All the register's properties (its records all have the same ones); none for a type it lacks. */
export function proposeProperties(kind: ReconcileKind, query: QueryInput): v.InferOutput<typeof PROPERTY_PROPOSAL> {
  const { type, limit } = parseInput(PROPOSE_PARAMS, query, (e) => invalid('invalid property proposal request', e));
  const known = type === undefined || typeIdOf(kind, type) !== null;
  const properties = known ? propertiesOf(kind).map(({ id, name, description }) => ({ id, name, description })) : [];
  return {
    ...(type !== undefined ? { type } : {}),
    ...(limit !== undefined ? { limit } : {}),
    properties: limit !== undefined ? properties.slice(0, limit) : properties,
  };
}

/** What a data extension query asks for: the entity ids (each once, in order) and the properties. */
export interface ExtendRequest {
  ids: string[];
  properties: PropertyDef[];
}

/** A data extension query read from its object; `at` prefixes error fields; property settings are ignored. */
export function readExtendRequest(kind: ReconcileKind, q: Record<string, unknown>, at = ''): ExtendRequest {
  const errors: Record<string, string> = {};
  if (!Array.isArray(q.ids) || !q.ids.every((id) => typeof id === 'string' && id.length <= MAX_ID_LENGTH))
    errors[`${at}ids`] = `required, an array of entity ids (strings of at most ${MAX_ID_LENGTH} characters)`;
  else if (q.ids.length > MAX_EXTEND_IDS) throw new BatchTooLarge('entity ids', q.ids.length, MAX_EXTEND_IDS);
  const wanted = new Set<string>();
  if (!Array.isArray(q.properties)) {
    errors[`${at}properties`] = 'required, an array of {"id"}';
  } else {
    for (const [i, p] of q.properties.entries()) {
      if (!isPlainObject(p) || typeof p.id !== 'string') errors[`${at}properties.${i}`] = 'must be an object with "id"';
      else if (p.settings !== undefined && !isPlainObject(p.settings))
        errors[`${at}properties.${i}.settings`] = 'must be an object';
      else if (!propertyOf(kind, p.id))
        errors[`${at}properties.${i}.id`] = `unknown property "${shortKey(p.id)}" (known: ${propertiesOf(kind)
          .map((d) => d.id)
          .join(', ')})`;
      else wanted.add(p.id);
      if (Object.keys(errors).length >= 20) break;
    }
  }
  if (Object.keys(errors).length > 0) throw invalid('invalid data extension request', errors);
  return { ids: [...new Set(q.ids as string[])], properties: [...wanted].flatMap((id) => propertyOf(kind, id) ?? []) };
}

/** Each id's values of each property asked for, in order; none for an id that names no record. */
export async function extendValues(ctx: Ctx, kind: ReconcileKind, { ids, properties }: ExtendRequest) {
  const rowIds = ids.flatMap((id) => rowIdOf(id) ?? []);
  const byId = new Map<number, Row>((await rowsByIds(ctx, kind, rowIds)).map((r) => [Number(r.id), r]));
  const out = new Map<string, Map<string, PropertyValue[]>>();
  for (const id of ids) {
    const rowId = rowIdOf(id);
    const row = rowId === null ? undefined : byId.get(rowId);
    out.set(id, new Map(properties.map((def) => [def.id, row ? def.values(row) : []])));
  }
  return out;
}

export const metaOf = ({ properties }: ExtendRequest) => properties.map(({ id, name }) => ({ id, name }));

/** A 0.2 data extension query, `extend=`: JSON text (query string, form) or parsed (JSON body). */
export async function extend(ctx: Ctx, kind: ReconcileKind, raw: unknown): Promise<ExtendAnswer> {
  const request = readExtendRequest(kind, jsonObjectParam(raw, 'extend', MAX_EXTEND_DEPTH), 'extend.');
  // Null prototypes: an id or property named "__proto__" is an ordinary key here.
  const rows = Object.create(null) as ExtendAnswer['rows'];
  for (const [id, byProperty] of await extendValues(ctx, kind, request)) {
    const values = Object.create(null) as Record<string, PropertyValue[]>;
    for (const [property, list] of byProperty) values[property] = list;
    rows[id] = values;
  }
  return { meta: metaOf(request), rows };
}
