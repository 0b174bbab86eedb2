// /api/keywords: list (json, select2). Keywords are read-only over HTTP.
import { toSelect2 } from '../../domain/catalog/formats.js';
import { KEYWORD_LIST, listKeywords } from '../../domain/catalog/keywords.js';
import { parseListQuery } from '../../domain/catalog/list.js';
import type { HandlerMap } from '../types.js';

export const handlers: HandlerMap = {
  'GET /api/keywords': async (ctx) => {
    const q = parseListQuery(ctx.query, KEYWORD_LIST);
    const list = await listKeywords(ctx.state.deps, q);
    ctx.body = q.format === 'select2' ? toSelect2(list, (k) => k.name) : list;
  },
};
