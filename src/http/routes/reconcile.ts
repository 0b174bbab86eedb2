// /api/{actors,places,keywords}/reconcile: the W3C Reconciliation API as OpenRefine uses it.
import { manifest, reconcile, type ReconcileKind } from '../../domain/catalog/reconcile.js';
import type { HandlerMap } from '../types.js';
import { baseUrl, bodyObject } from './input.js';

function reconciliation(kind: ReconcileKind): HandlerMap {
  return {
    [`GET /api/${kind}/reconcile`]: async (ctx) => {
      const queries = ctx.query.queries;
      ctx.body = queries === undefined ? manifest(kind, baseUrl(ctx)) : await reconcile(ctx.state.deps, kind, queries);
    },
    [`POST /api/${kind}/reconcile`]: async (ctx) => {
      ctx.body = await reconcile(ctx.state.deps, kind, bodyObject(ctx).queries ?? ctx.query.queries);
    },
  };
}

export const handlers: HandlerMap = {
  ...reconciliation('actors'),
  ...reconciliation('places'),
  ...reconciliation('keywords'),
};
