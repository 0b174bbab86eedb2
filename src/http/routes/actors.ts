// /api/actors: list (json, select2, beacon, narrowed by Anton's `authority_type`), one actor,
// create, change with PUT; records carry Anton's fields (full_id, fullname, authority_type).
import { actorsBeacon, createActor, getActor, listActors, updateActor } from '../../domain/catalog/actors.js';
import { antonActor, parseAuthorityTypeFilter } from '../../domain/catalog/anton/fields.js';
import { ACTOR } from '../../domain/catalog/resources/index.js';
import { catalogRoutes } from './catalog-routes.js';

export const handlers = catalogRoutes({
  resource: ACTOR,
  filter: (query) => ({ type: parseAuthorityTypeFilter(query) }),
  list: listActors,
  beacon: actorsBeacon,
  show: antonActor,
  get: getActor,
  create: createActor,
  update: updateActor,
});
