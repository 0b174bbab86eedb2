// /api/places: list (json, select2, beacon), one place, create, change.
import { parseBeaconProvider, toSelect2 } from '../../domain/catalog/formats.js';
import { parseListQuery } from '../../domain/catalog/list.js';
import {
  createPlace,
  getPlace,
  listPlaces,
  PLACE_BEACON_PROVIDERS,
  PLACE_LIST,
  placesBeacon,
  updatePlace,
} from '../../domain/catalog/places.js';
import type { HandlerMap } from '../types.js';
import { baseUrl, bodyObject, idParam } from './input.js';

export const handlers: HandlerMap = {
  'GET /api/places': async (ctx) => {
    const q = parseListQuery(ctx.query, PLACE_LIST);
    if (q.format === 'beacon') {
      const provider = parseBeaconProvider(ctx.query, PLACE_BEACON_PROVIDERS);
      ctx.body = await placesBeacon(ctx.state.deps, provider, baseUrl(ctx));
      ctx.type = 'text/plain; charset=utf-8';
      return;
    }
    const list = await listPlaces(ctx.state.deps, q);
    ctx.body = q.format === 'select2' ? toSelect2(list, (p) => p.name) : list;
  },

  'GET /api/places/:id': async (ctx) => {
    ctx.body = { data: await getPlace(ctx.state.deps, idParam(ctx, 'place')) };
  },

  'POST /api/places': async (ctx) => {
    const place = await createPlace(ctx.state.deps, bodyObject(ctx));
    ctx.status = 201;
    ctx.body = { data: place };
  },

  // The source API changes a place with POST (not PUT) on its URL.
  'POST /api/places/:id': async (ctx) => {
    const id = idParam(ctx, 'place');
    ctx.body = { data: await updatePlace(ctx.state.deps, id, bodyObject(ctx)) };
  },
};
