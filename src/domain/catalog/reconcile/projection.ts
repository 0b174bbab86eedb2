// A resource's projection onto the Reconciliation API 0.2 (part of its description, see
// resources/). The services know nothing of any one resource beyond this.

import type { PropertyValue, TypeRef } from './answers.js';

export type { PropertyValue, TypeRef } from './answers.js';

export interface Row {
  id: number;
  name: string;
  [column: string]: unknown;
}

/** How a reconciliation query's values of a property are compared with a record's column. */
export interface PropertyMatch {
  column: string;
  /** The value as stored, or null when it cannot be one (a malformed GND id matches nothing). */
  normalise(value: string): string | null;
  /** Compared without regard to case (city, state); otherwise exactly. */
  caseInsensitive?: true;
  /** An authority identifier: a record with it is the entity, whatever its name (score 100). */
  identifies?: true;
}

export interface PropertyDef {
  id: string;
  name: string;
  description: string;
  values(row: Row): PropertyValue[];
  match?: PropertyMatch;
  /** The page of a value in its authority file, linked from the preview. */
  link?(value: string): string;
  /** Left out of the preview: shown there already (the heading, the description, the location). */
  inPreview?: false;
}

export interface ReconcileProjection {
  /** The types of the register's entities (the manifest's default types). */
  types: readonly TypeRef[];
  /** The column holding a record's type id; without one, every record has all the types. */
  typeColumn?: string;
  /** The columns the services read: every one a description, property or preview shows. */
  columns: readonly string[];
  /** A JSON column of other names, searched and scored beside the name. */
  alternativeNames?: string;
  /** Whether a record has a page of its own (the manifest's `view`). */
  view: boolean;
  /** A short line that tells namesakes apart ("Person, 1759–1805", "Zürich, CH"). */
  describe?(row: Row, types: readonly TypeRef[]): string | undefined;
  /** What data extension returns, property suggest and proposals offer, and queries may filter by. */
  properties: readonly PropertyDef[];
}

/** Type ids with readable names: "corporate_body" is "Corporate body". */
export const typeRefs = (ids: readonly string[]): TypeRef[] =>
  ids.map((id) => ({ id, name: id.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()) }));

/** The id of one of `types`, also given by its name ("Corporate body"), or null. */
export function typeIdIn(types: readonly TypeRef[], given: string): string | null {
  const lower = given.trim().toLowerCase();
  return types.find((t) => t.id === given || t.name.toLowerCase() === lower)?.id ?? null;
}

export const textOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);
