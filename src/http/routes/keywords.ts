// /api/keywords: list (json, select2). Keywords are read-only over HTTP; items carry Anton's
// `full_id` for its clients.
import { antonKeyword } from '../../domain/catalog/anton-fields.js';
import { toSelect2 } from '../../domain/catalog/formats.js';
import { KEYWORD_LIST, listKeywords } from '../../domain/catalog/keywords.js';
import { parseListQuery } from '../../domain/catalog/list.js';
import type { HandlerMap } from '../types.js';

export const handlers: HandlerMap = {
  'GET /api/keywords': async (ctx) => {
    const { deps } = ctx.state;
    const q = parseListQuery(ctx.query, KEYWORD_LIST);
    const list = await listKeywords(deps, q);
    const slug = deps.config.slug;
    ctx.body = q.format === 'select2' ? toSelect2(list, (k) => k.name) : { ...list, data: list.data.map((k) => antonKeyword(k, slug)) };
  },
};
