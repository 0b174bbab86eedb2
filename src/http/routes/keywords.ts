// /api/keywords: list (json, select2) and reconciliation. Keywords are read-only over HTTP.
import { toSelect2 } from '../../domain/catalog/formats.js';
import { KEYWORD_LIST, listKeywords } from '../../domain/catalog/keywords.js';
import { parseListQuery } from '../../domain/catalog/list.js';
import { manifest, reconcile } from '../../domain/catalog/reconcile.js';
import type { HandlerMap } from '../types.js';
import { baseUrl, bodyObject } from './input.js';

export const handlers: HandlerMap = {
  'GET /api/keywords': async (ctx) => {
    const q = parseListQuery(ctx.query, KEYWORD_LIST);
    const list = await listKeywords(ctx.state.deps, q);
    ctx.body = q.format === 'select2' ? toSelect2(list, (k) => k.name) : list;
  },

  'GET /api/keywords/reconcile': async (ctx) => {
    const queries = ctx.query.queries;
    ctx.body = queries === undefined ? manifest('keywords', baseUrl(ctx)) : await reconcile(ctx.state.deps, 'keywords', queries);
  },

  'POST /api/keywords/reconcile': async (ctx) => {
    ctx.body = await reconcile(ctx.state.deps, 'keywords', bodyObject(ctx).queries ?? ctx.query.queries);
  },
};
