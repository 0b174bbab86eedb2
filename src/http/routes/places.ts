// /api/places, changed with POST on its URL as the source API does; records carry Anton's full_id
// and country.
import { antonPlace } from '../../domain/catalog/anton/fields.js';
import { createPlace, placesBeacon, updatePlace } from '../../domain/catalog/places.js';
import { PLACE } from '../../domain/catalog/resources/index.js';
import { catalogRoutes } from './catalog-routes.js';

export const routes = catalogRoutes({
  resource: PLACE,
  beacon: placesBeacon,
  show: antonPlace,
  create: createPlace,
  update: updatePlace,
});
