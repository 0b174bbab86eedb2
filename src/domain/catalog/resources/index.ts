// The catalogue's resources, one description each (actor.ts, place.ts, keyword.ts, object.ts).
//
// Adding a field to a resource touches its description, a migration and its tests. In the
// description: its type in the record interface, its column (how the row value is read and
// written: text, JSON, a lower-cased copy), its entry in `fields` (the valibot schema of the
// input, required or nullable) and, when it should be listed, searched or sorted by, its place
// in `list`. Storage (records.ts), the list (list.ts), the HTTP routes
// (http/routes/catalog-routes.ts), select2 and BEACON follow from the description; TEI and
// reconciliation show a field once it is named in their projection of the resource (`tei`:
// its builder in tei-document.ts; `reconcile`: its columns and properties, built with
// reconcile-properties.ts), and the TEI exports and reconciliation services exist for each
// resource that has the projection.
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
