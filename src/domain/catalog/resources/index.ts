// The catalogue's resources, one description each (what derives from them: docs/ARCHITECTURE.md).
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
