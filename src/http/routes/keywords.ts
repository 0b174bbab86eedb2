// /api/keywords: the list (json, select2). Keywords are read-only over HTTP; items carry
// Anton's `full_id` for its clients.
import { antonKeyword } from '../../domain/catalog/anton/fields.js';
import { listKeywords } from '../../domain/catalog/keywords.js';
import { KEYWORD } from '../../domain/catalog/resources/index.js';
import { catalogRoutes } from './catalog-routes.js';

export const handlers = catalogRoutes({ resource: KEYWORD, list: listKeywords, show: antonKeyword });
