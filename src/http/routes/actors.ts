// /api/actors: list (json, select2, beacon, narrowed by Anton's `authority_type`), one actor,
// create, change with PUT; records carry Anton's fields (full_id, fullname, authority_type).
import { actorsBeacon, createActor, listActors, updateActor } from '../../domain/catalog/actors.js';
import { AUTHORITY_TYPE_PARAM, antonActor, parseAuthorityTypeFilter } from '../../domain/catalog/anton/fields.js';
import { ACTOR } from '../../domain/catalog/resources/index.js';
import { catalogRoutes } from './catalog-routes.js';

export const routes = catalogRoutes({
  resource: ACTOR,
  filter: {
    parse: (query) => ({ type: parseAuthorityTypeFilter(query) }),
    schema: AUTHORITY_TYPE_PARAM,
    words: { authority_type: 'a type: its code, label or `type_id` (Anton)' },
  },
  list: listActors,
  beacon: actorsBeacon,
  show: antonActor,
  create: createActor,
  update: updateActor,
});
