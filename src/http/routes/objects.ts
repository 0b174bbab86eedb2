// /api/objects: the list (json, select2), with Anton's `identifier` shortcut. Objects are
// read-only over HTTP.
import { toSelect2 } from '../../domain/catalog/formats.js';
import { parseListQuery } from '../../domain/catalog/list.js';
import { listObjects, OBJECT_LIST, parseObjectFilter } from '../../domain/catalog/objects.js';
import type { HandlerMap } from '../types.js';

export const handlers: HandlerMap = {
  'GET /api/objects': async (ctx) => {
    const q = parseListQuery(ctx.query, OBJECT_LIST);
    const list = await listObjects(ctx.state.deps, q, parseObjectFilter(ctx.query));
    ctx.body = q.format === 'select2' ? toSelect2(list, (o) => o.title ?? o.identifier) : list;
  },
};
