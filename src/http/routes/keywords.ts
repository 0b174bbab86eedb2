// /api/keywords: the list only (read-only over HTTP); items carry Anton's `full_id`.
import { antonKeyword } from '../../domain/catalog/anton/fields.js';
import { KEYWORD } from '../../domain/catalog/resources/index.js';
import { catalogRoutes } from './catalog-routes.js';

export const routes = catalogRoutes({ resource: KEYWORD, show: antonKeyword });
