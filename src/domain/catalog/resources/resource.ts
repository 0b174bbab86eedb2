// What a catalogue resource is, once; storage, lists, routes, select2, BEACON, TEI and
// reconciliation derive their work from it (index.ts).
import type { v } from '../../../validation.js';
import type { ListFormat, ListOptions } from '../list/query.js';
import { recordSchema, type FieldSpecs, type FieldValues } from '../record-schema.js';
import type { BeaconProvider } from '../list/beacon.js';
import type { ReconcileProjection } from '../reconcile/projection.js';
import type { TeiProjection } from '../tei/document.js';
import type { Column } from './columns.js';

export interface ResourceDescription<
  R extends { id: number },
  S extends FieldSpecs,
  F extends string,
  B extends BeaconProvider = BeaconProvider,
> {
  table: string;
  /** The word in "no actor with id 3". */
  what: string;
  /** The record's columns, in the order of its JSON. */
  columns: { [K in keyof R]: Column<R[K]> };
  /** The fields a client (or `catalog load`) may give. */
  fields: S;
  /** Keys a body may carry without effect: server-set and derived fields (a GET result sent back). */
  readOnly: readonly string[];
  /** Column values of a new row that its input did not give. */
  insertDefaults?: Record<string, unknown>;
  list: {
    sortFields: readonly F[];
    formats: readonly ListFormat[];
    /** Longest accepted search string (the searched columns' width); 255 when absent. */
    searchMax?: number;
    /** The lower-cased columns `search` looks in (any of them). */
    search: readonly string[];
    /** Sort fields stored under another column (a lower-cased copy); others sort by their own. */
    sortColumns?: Partial<Record<F, string>>;
  };
  select2(record: R): string;
  /** BEACON link dumps: the authority files whose ids the resource keeps, and the dump's name. */
  beacon?: { providers: readonly B[]; name: string };
  /** TEI export (GET /api/tei/<table>): how the rows become the document. */
  tei?: TeiProjection;
  /** Reconciliation service (/api/<table>/reconcile): types, columns, properties. */
  reconcile?: ReconcileProjection;
  /** Its routes under /api/<table>: the list's access rule and the record operations offered. */
  api: { list: 'token_or_public_api' | 'authority'; record?: true; create?: true; update?: 'PUT' | 'POST' };
}

export interface Resource<
  R extends { id: number },
  S extends FieldSpecs,
  F extends string,
  B extends BeaconProvider = BeaconProvider,
> extends ResourceDescription<R, S, F, B> {
  columnNames: readonly string[];
  listOptions: ListOptions<F>;
  /** The input schemas: a create needs the required fields, a change reads those given. */
  input: { create: v.GenericSchema<unknown, FieldValues<S>>; update: v.GenericSchema<unknown, FieldValues<S>> };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyResource = Resource<any, FieldSpecs, string>;

/** Completes a description with what is derived from it once. */
export function defineResource<
  R extends { id: number },
  S extends FieldSpecs,
  F extends string,
  B extends BeaconProvider = never,
>(d: ResourceDescription<R, S, F, B>): Resource<R, S, F, B> {
  return {
    ...d,
    columnNames: Object.keys(d.columns),
    listOptions: {
      sortFields: d.list.sortFields,
      formats: d.list.formats,
      ...(d.list.searchMax ? { searchMax: d.list.searchMax } : {}),
    },
    input: {
      create: recordSchema(d.fields, 'create', d.readOnly),
      update: recordSchema(d.fields, 'update', d.readOnly),
    },
  };
}
