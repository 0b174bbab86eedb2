// /api/objects: the list only (read-only over HTTP), with Anton's `identifier` shortcut.
import { listObjects, parseObjectFilter } from '../../domain/catalog/objects.js';
import { OBJECT } from '../../domain/catalog/resources/index.js';
import { catalogRoutes } from './catalog-routes.js';

export const handlers = catalogRoutes({ resource: OBJECT, filter: parseObjectFilter, list: listObjects });
