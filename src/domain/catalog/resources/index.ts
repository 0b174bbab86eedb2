// The catalogue's resources, one description each (actor.ts, place.ts, keyword.ts, object.ts).
//
// A new field touches the description, a migration and the tests. In the description: its type
// in the record interface, its column (text, JSON, a lower-cased copy), its entry in `fields`
// (the input's valibot schema, required or nullable) and, to be listed, searched or sorted by,
// `list`. Storage (records.ts), lists (list/), the routes (http/routes/catalog-routes.ts),
// select2 and BEACON follow from the description; TEI and reconciliation show a field once their
// projection names it (`tei`: tei/document.ts; `reconcile`: its columns, and properties built
// with reconcile/properties.ts), and each resource with a projection has the export or service.
import { ACTOR } from './actor.js';
import { KEYWORD } from './keyword.js';
import { OBJECT } from './object.js';
import { PLACE } from './place.js';
import type { AnyResource } from './resource.js';

export { ACTOR, ACTOR_TYPES, type Actor, type ActorType } from './actor.js';
export { KEYWORD, type Keyword } from './keyword.js';
export { OBJECT, OBJECT_STATUSES, type ObjectRecord, type ObjectStatus } from './object.js';
export { PLACE, type Place } from './place.js';
export type { AnyResource, Resource } from './resource.js';

/** Every resource, in the order the exports and services list them. */
export const RESOURCES: readonly AnyResource[] = [ACTOR, PLACE, KEYWORD, OBJECT];
