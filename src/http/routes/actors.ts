// /api/actors: list (json, select2, beacon), one actor, create, change.
import {
  ACTOR_BEACON_PROVIDERS,
  ACTOR_LIST,
  actorsBeacon,
  createActor,
  getActor,
  listActors,
  updateActor,
} from '../../domain/catalog/actors.js';
import { parseBeaconProvider, toSelect2 } from '../../domain/catalog/formats.js';
import { parseListQuery } from '../../domain/catalog/list.js';
import type { HandlerMap } from '../types.js';
import { baseUrl, bodyObject, idParam } from './input.js';

export const handlers: HandlerMap = {
  'GET /api/actors': async (ctx) => {
    const q = parseListQuery(ctx.query, ACTOR_LIST);
    if (q.format === 'beacon') {
      const provider = parseBeaconProvider(ctx.query, ACTOR_BEACON_PROVIDERS);
      ctx.body = await actorsBeacon(ctx.state.deps, provider, baseUrl(ctx));
      ctx.type = 'text/plain; charset=utf-8';
      return;
    }
    const list = await listActors(ctx.state.deps, q);
    ctx.body = q.format === 'select2' ? toSelect2(list, (a) => a.name) : list;
  },

  'GET /api/actors/:id': async (ctx) => {
    ctx.body = { data: await getActor(ctx.state.deps, idParam(ctx, 'actor')) };
  },

  'POST /api/actors': async (ctx) => {
    const actor = await createActor(ctx.state.deps, bodyObject(ctx));
    ctx.status = 201;
    ctx.body = { data: actor };
  },

  'PUT /api/actors/:id': async (ctx) => {
    const id = idParam(ctx, 'actor');
    ctx.body = { data: await updateActor(ctx.state.deps, id, bodyObject(ctx)) };
  },
};
