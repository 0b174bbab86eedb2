// The data extension service of Reconciliation 0.2: once a column is reconciled, OpenRefine
// adds columns with the properties of the matched records ("Add columns from reconciled
// values"). Property proposals (GET …/properties?type=…) tell it what there is; a data
// extension query (`extend` = {"ids": […], "properties": [{"id"}, …]}) fetches the values.
import { invalid } from '../../../errors.js';
import type { Ctx } from '../../context.js';
import { isPlainObject } from '../json-values.js';
import { optionalParam, wholeNumber, type QueryInput } from '../list/params.js';
import { check, v } from '../../../validation.js';
import { BatchTooLarge, jsonObjectParam, shortKey } from './input.js';
import { propertiesOf, propertyOf, rowIdOf, rowsByIds, typeIdOf, type ReconcileKind } from './entities.js';
import type { PropertyValue, Row } from './projection.js';

/** The most entities in one data extension request; more is a BatchTooLarge (413). */
export const MAX_EXTEND_IDS = 100;
/** ids → [strings], properties → [objects] → settings → values: 4; a little room, no more. */
const MAX_DEPTH = 5;
const MAX_ID_LENGTH = 64;

export interface PropertyProposal {
  type?: string;
  limit?: number;
  properties: { id: string; name: string; description: string }[];
}

/**
 * The properties worth fetching for entities of `type` (every property of the register: all
 * its records have the same ones). Without `type`, the register's properties; with a type the
 * register does not have, none. `limit` (optional) cuts the list.
 */
const PROPOSE_PARAMS = v.object({
  type: optionalParam(
    v.pipe(
      v.string(),
      v.check((t) => [...t].length <= 255, 'must be at most 255 characters'),
    ),
  ),
  limit: optionalParam(wholeNumber(1, 1000)),
});

export function proposeProperties(kind: ReconcileKind, query: QueryInput): PropertyProposal {
  const read = check(PROPOSE_PARAMS, query);
  if (!read.ok) throw invalid('invalid property proposal request', read.errors);
  const { type, limit } = read.value;
  const known = type === undefined || typeIdOf(kind, type) !== null;
  const properties = known ? propertiesOf(kind).map(({ id, name, description }) => ({ id, name, description })) : [];
  return {
    ...(type !== undefined ? { type } : {}),
    ...(limit !== undefined ? { limit } : {}),
    properties: limit !== undefined ? properties.slice(0, limit) : properties,
  };
}

export interface ExtendAnswer {
  meta: { id: string; name: string }[];
  /** For each id asked for, each property's values (none for an id that names no record). */
  rows: Record<string, Record<string, PropertyValue[]>>;
}

/**
 * A data extension query: `{"ids": ["12", …], "properties": [{"id": "gnd"}, …]}`, as JSON text
 * (query string, form) or parsed (JSON body). Unknown property ids are a 422 naming them (the
 * proposals list the known ones); ids that name no record get empty values, like records that
 * lack the property. Property settings are accepted and ignored: none are offered.
 */
export async function extend(ctx: Ctx, kind: ReconcileKind, raw: unknown): Promise<ExtendAnswer> {
  const q = jsonObjectParam(raw, 'extend', MAX_DEPTH);
  const errors: Record<string, string> = {};
  if (!Array.isArray(q.ids) || !q.ids.every((id) => typeof id === 'string' && id.length <= MAX_ID_LENGTH)) {
    errors['extend.ids'] = `required, an array of entity ids (strings of at most ${MAX_ID_LENGTH} characters)`;
  } else if (q.ids.length > MAX_EXTEND_IDS) {
    throw new BatchTooLarge('entity ids', q.ids.length, MAX_EXTEND_IDS);
  }
  const wanted: string[] = [];
  if (!Array.isArray(q.properties)) {
    errors['extend.properties'] = 'required, an array of {"id"}';
  } else {
    for (const [i, p] of q.properties.entries()) {
      if (!isPlainObject(p) || typeof p.id !== 'string')
        errors[`extend.properties.${i}`] = 'must be an object with "id"';
      else if (p.settings !== undefined && !isPlainObject(p.settings))
        errors[`extend.properties.${i}.settings`] = 'must be an object';
      else if (!propertyOf(kind, p.id))
        errors[`extend.properties.${i}.id`] = `unknown property "${shortKey(p.id)}" (known: ${propertiesOf(kind)
          .map((d) => d.id)
          .join(', ')})`;
      else if (!wanted.includes(p.id)) wanted.push(p.id);
      if (Object.keys(errors).length >= 20) break;
    }
  }
  if (Object.keys(errors).length > 0) throw invalid('invalid data extension request', errors);
  const ids = [...new Set(q.ids as string[])];
  const defs = wanted.flatMap((id) => propertyOf(kind, id) ?? []);
  const rowIds = ids.flatMap((id) => rowIdOf(id) ?? []);
  const byId = new Map<number, Row>((await rowsByIds(ctx, kind, rowIds)).map((r) => [Number(r.id), r]));
  // Null prototypes: an id or property named "__proto__" is an ordinary key here.
  const rows = Object.create(null) as ExtendAnswer['rows'];
  for (const id of ids) {
    const rowId = rowIdOf(id);
    const row = rowId === null ? undefined : byId.get(rowId);
    const values = Object.create(null) as Record<string, PropertyValue[]>;
    for (const def of defs) values[def.id] = row ? def.values(row) : [];
    rows[id] = values;
  }
  return { meta: defs.map(({ id, name }) => ({ id, name })), rows };
}
