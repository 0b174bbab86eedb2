// /api/objects: the list only (read-only over HTTP), with Anton's `identifier` shortcut.
import { IDENTIFIER_PARAM, listObjects, parseObjectFilter } from '../../domain/catalog/objects.js';
import { OBJECT } from '../../domain/catalog/resources/index.js';
import { catalogRoutes } from './catalog-routes.js';

export const routes = catalogRoutes({
  resource: OBJECT,
  filter: {
    parse: parseObjectFilter,
    schema: IDENTIFIER_PARAM,
    words: { identifier: 'the object with exactly this identifier (Anton)' },
  },
  list: listObjects,
});
