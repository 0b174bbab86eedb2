// /api/actors: list (json, select2, beacon), one actor, create, change. Records carry Anton's
// derived fields (full_id, fullname, authority_type) for its clients.
import {
  ACTOR_BEACON_PROVIDERS,
  ACTOR_LIST,
  actorsBeacon,
  createActor,
  getActor,
  listActors,
  updateActor,
} from '../../domain/catalog/actors.js';
import { antonActor, parseAuthorityTypeFilter } from '../../domain/catalog/anton-fields.js';
import { parseBeaconProvider } from '../../domain/catalog/beacon.js';
import { toSelect2 } from '../../domain/catalog/formats.js';
import { parseListQuery } from '../../domain/catalog/list.js';
import type { HandlerMap } from '../types.js';
import { baseUrl, bodyObject, idParam, sendValidated, setLocation } from './input.js';

export const handlers: HandlerMap = {
  'GET /api/actors': async (ctx) => {
    const { deps } = ctx.state;
    const q = parseListQuery(ctx.query, ACTOR_LIST);
    const filter = { type: parseAuthorityTypeFilter(ctx.query) };
    if (q.format === 'beacon') {
      const provider = parseBeaconProvider(ctx.query, ACTOR_BEACON_PROVIDERS);
      const dump = await actorsBeacon(deps, provider, baseUrl(ctx), filter);
      sendValidated(ctx, dump.text, 'text/plain; charset=utf-8', dump);
      return;
    }
    const list = await listActors(deps, q, filter);
    const slug = deps.config.slug;
    ctx.body = q.format === 'select2' ? toSelect2(list, (a) => a.name) : { ...list, data: list.data.map((a) => antonActor(a, slug)) };
  },

  'GET /api/actors/:id': async (ctx) => {
    const { deps } = ctx.state;
    ctx.body = { data: antonActor(await getActor(deps, idParam(ctx, 'actor')), deps.config.slug) };
  },

  'POST /api/actors': async (ctx) => {
    const { deps } = ctx.state;
    const actor = await createActor(deps, bodyObject(ctx));
    ctx.status = 201;
    setLocation(ctx, `/api/actors/${actor.id}`);
    ctx.body = { data: antonActor(actor, deps.config.slug) };
  },

  'PUT /api/actors/:id': async (ctx) => {
    const { deps } = ctx.state;
    const id = idParam(ctx, 'actor');
    ctx.body = { data: antonActor(await updateActor(deps, id, bodyObject(ctx)), deps.config.slug) };
  },
};
