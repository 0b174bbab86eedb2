// /api/objects: the list (json, select2), with Anton's `identifier` shortcut. Objects are
// read-only over HTTP.
import { listObjects, parseObjectFilter } from '../../domain/catalog/objects.js';
import { OBJECT } from '../../domain/catalog/resources/index.js';
import { catalogRoutes } from './catalog-routes.js';

export const handlers = catalogRoutes({ resource: OBJECT, filter: parseObjectFilter, list: listObjects });
