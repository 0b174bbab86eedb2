// /api/places: list (json, select2, beacon), one place, create, change. Records carry Anton's
// derived fields (full_id, country) for its clients.
import { antonPlace } from '../../domain/catalog/anton-fields.js';
import { parseBeaconProvider } from '../../domain/catalog/beacon.js';
import { toSelect2 } from '../../domain/catalog/formats.js';
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
import { baseUrl, bodyObject, idParam, sendValidated, setLocation } from './input.js';

export const handlers: HandlerMap = {
  'GET /api/places': async (ctx) => {
    const { deps } = ctx.state;
    const q = parseListQuery(ctx.query, PLACE_LIST);
    if (q.format === 'beacon') {
      const provider = parseBeaconProvider(ctx.query, PLACE_BEACON_PROVIDERS);
      const dump = await placesBeacon(deps, provider, baseUrl(ctx));
      sendValidated(ctx, dump.text, 'text/plain; charset=utf-8', dump);
      return;
    }
    const list = await listPlaces(deps, q);
    const slug = deps.config.slug;
    ctx.body = q.format === 'select2' ? toSelect2(list, (p) => p.name) : { ...list, data: list.data.map((p) => antonPlace(p, slug)) };
  },

  'GET /api/places/:id': async (ctx) => {
    const { deps } = ctx.state;
    ctx.body = { data: antonPlace(await getPlace(deps, idParam(ctx, 'place')), deps.config.slug) };
  },

  'POST /api/places': async (ctx) => {
    const { deps } = ctx.state;
    const place = await createPlace(deps, bodyObject(ctx));
    ctx.status = 201;
    setLocation(ctx, `/api/places/${place.id}`);
    ctx.body = { data: antonPlace(place, deps.config.slug) };
  },

  // The source API changes a place with POST (not PUT) on its URL.
  'POST /api/places/:id': async (ctx) => {
    const { deps } = ctx.state;
    const id = idParam(ctx, 'place');
    ctx.body = { data: antonPlace(await updatePlace(deps, id, bodyObject(ctx)), deps.config.slug) };
  },
};
