// What the reconciliation services know of a register's records, read from its resource's
// reconciliation projection (resources/), and a record as the protocol's entity.
import type { Knex } from 'knex';
import type { Ctx } from '../../context.js';
import { parseRowId } from '../../../db/row-id.js';
import { withinTextIndexById } from '../../../db/text-index.js';
import { likePattern, orWhereLikePattern } from '../list/query.js';
import { namesIn } from './properties.js';
import { typeIdIn, type PropertyDef, type ReconcileProjection, type Row, type TypeRef } from './projection.js';
import { RESOURCES } from '../resources/index.js';

/** A register with a reconciliation service: its table, which also names it in the paths. */
export type ReconcileKind = string;

/** A register's service: its resource's projection, with the resource's table and word. */
type Service = ReconcileProjection & { table: string; what: string };

const SERVICES = new Map<ReconcileKind, Service>(
  RESOURCES.flatMap((r) => (r.reconcile ? [[r.table, { ...r.reconcile, table: r.table, what: r.what }] as const] : [])),
);

/** The registers that have a reconciliation service (/api/<kind>/reconcile). */
export const RECONCILE_KINDS: readonly ReconcileKind[] = [...SERVICES.keys()];

/** The service of a register; the routes are built from RECONCILE_KINDS, so any other is a bug. */
export function serviceOf(kind: ReconcileKind): Service {
  const service = SERVICES.get(kind);
  if (!service) throw new Error(`no reconciliation service for "${kind}"`);
  return service;
}

export function typeIdOf(kind: ReconcileKind, given: string): string | null {
  return typeIdIn(serviceOf(kind).types, given);
}

export interface Entity {
  id: number;
  name: string;
  alternativeNames: string[];
  type: TypeRef[];
  description?: string;
}

export function alternativeNamesOf(kind: ReconcileKind, row: Row): string[] {
  const column = serviceOf(kind).alternativeNames;
  return column ? namesIn(row, column) : [];
}

/** A record's types: its own (by the type column), else all the register's. */
export function typesOf(kind: ReconcileKind, row: Row): TypeRef[] {
  const { types, typeColumn } = serviceOf(kind);
  if (!typeColumn) return [...types];
  const id = row[typeColumn];
  return [types.find((t) => t.id === id) ?? { id: String(id), name: String(id) }];
}

export function descriptionOf(kind: ReconcileKind, row: Row): string | undefined {
  return serviceOf(kind).describe?.(row, typesOf(kind, row));
}

export function toEntity(kind: ReconcileKind, row: Row): Entity {
  const description = descriptionOf(kind, row);
  return {
    id: Number(row.id),
    name: row.name,
    alternativeNames: alternativeNamesOf(kind, row),
    type: typesOf(kind, row),
    ...(description ? { description } : {}),
  };
}

export const propertiesOf = (kind: ReconcileKind): readonly PropertyDef[] => serviceOf(kind).properties;

export function propertyOf(kind: ReconcileKind, id: string): PropertyDef | undefined {
  return propertiesOf(kind).find((p) => p.id === id);
}

/** The row id an entity id names, or null ("12" names row 12; "012", "1e3", "x" name none). */
export const rowIdOf = (id: string): number | null => parseRowId(id);

/** The register's rows with the columns the services read, of the given type ids where the register has types. */
export function selectRows(ctx: Ctx, kind: ReconcileKind, types: readonly string[] | null = null): Knex.QueryBuilder {
  const { table, columns, typeColumn } = serviceOf(kind);
  const b = ctx.db(table).select(...columns);
  return types && typeColumn ? b.whereIn(typeColumn, types) : b;
}

/** The rows with these ids (in no particular order; unknown ids are left out). */
export async function rowsByIds(ctx: Ctx, kind: ReconcileKind, ids: readonly number[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  return (await selectRows(ctx, kind).whereIn('id', [...new Set(ids)])) as Row[];
}

/** The rows whose name or alternative names hold any of `words`, in id order, through the text index, LIKE deciding. */
export function withNameWords(ctx: Ctx, b: Knex.QueryBuilder, kind: ReconcileKind, words: readonly string[]) {
  const { table, alternativeNames } = serviceOf(kind);
  return withinTextIndexById(ctx.db, b, table, alternativeNames ? ['name', 'alt'] : ['name'], words).where((w) => {
    for (const pattern of words.map(likePattern)) {
      void orWhereLikePattern(w, 'name_lower', pattern);
      if (alternativeNames) void w.orWhereRaw(`LOWER(??) LIKE ? ESCAPE '\\'`, [alternativeNames, pattern]);
    }
  });
}
