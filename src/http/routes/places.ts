// /api/places, changed with POST on its URL as the source API does; records carry Anton's full_id
// and country.
import { antonPlace } from '../../domain/catalog/anton/fields.js';
import { createPlace, getPlace, listPlaces, placesBeacon, updatePlace } from '../../domain/catalog/places.js';
import { PLACE } from '../../domain/catalog/resources/index.js';
import { catalogRoutes } from './catalog-routes.js';

export const routes = catalogRoutes({
  resource: PLACE,
  list: listPlaces,
  beacon: placesBeacon,
  show: antonPlace,
  get: getPlace,
  create: createPlace,
  update: updatePlace,
});
