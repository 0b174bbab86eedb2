// The routes of one catalogue resource, from its description (domain/catalog/resources/) and its
// operations (list, BEACON dump, one record, create, change): route files say only what differs.
import { resourcePath } from '../../domain/access.js';
import type { Ctx } from '../../domain/context.js';
import { parseBeaconProvider, type BeaconProvider } from '../../domain/catalog/list/beacon.js';
import { beaconDump, openDump, type DumpRequest } from '../../domain/catalog/list/beacon-dump.js';
import { exportsDir } from '../../domain/catalog/export-file.js';
import { toSelect2 } from '../../domain/catalog/list/formats.js';
import { listLinks } from '../../domain/catalog/list/links.js';
import { parseListQuery, type ListQuery, type ListResult, type QueryInput } from '../../domain/catalog/list/query.js';
import type { Resource } from '../../domain/catalog/resources/index.js';
import type { FieldSpecs } from '../../domain/catalog/record-schema.js';
import type { ApiContext, HandlerMap } from '../types.js';
import { sendFile } from '../send-file.js';
import { baseUrl, idParam, requiredBody, setLocation, validate } from './input.js';

export interface CatalogRoutes<R extends { id: number }, Filter, B extends BeaconProvider> {
  resource: Resource<R, FieldSpecs, string, B>;
  /** The resource's own list parameters (read after the common ones). */
  filter?: (query: QueryInput) => Filter;
  list: (ctx: Ctx, q: ListQuery, filter: Filter) => Promise<ListResult<R>>;
  /** The BEACON dump a request asks for (built and sent from a file: list/beacon-dump.ts). */
  beacon?: (provider: B, baseUrl: string, filter: Filter) => DumpRequest;
  /** A record as the API answers it (Anton's derived fields added); the record itself when absent. */
  show?: (record: R, slug: string) => unknown;
  get?: (ctx: Ctx, id: number) => Promise<R>;
  create?: (ctx: Ctx, body: Record<string, unknown>) => Promise<R>;
  /** Changes a record on its URL, by the method its description names (`api.update`). */
  update?: (ctx: Ctx, id: number, body: Record<string, unknown>) => Promise<R>;
}

export function catalogRoutes<R extends { id: number }, Filter, B extends BeaconProvider>(
  api: CatalogRoutes<R, Filter, B>,
): HandlerMap {
  const { resource } = api;
  const path = resourcePath(resource);
  const show = (ctx: ApiContext, record: R) => (api.show ? api.show(record, ctx.state.deps.config.slug) : record);
  const handlers: HandlerMap = {
    [`GET ${path}`]: async (ctx) => {
      const { deps } = ctx.state;
      const q = parseListQuery(ctx.query, resource.listOptions, ctx.querystring);
      const filter = api.filter?.(ctx.query) as Filter;
      if (q.format === 'beacon' && api.beacon && resource.beacon) {
        const provider = parseBeaconProvider(ctx.query, resource.beacon.providers);
        const request = api.beacon(provider, baseUrl(ctx), filter);
        const dumps = { db: deps.db, dir: exportsDir(deps.config.dataDir) };
        const dump = await beaconDump(dumps, request);
        if (validate(ctx, dump)) {
          ctx.status = 304;
          return;
        }
        // The file is opened only when the client does not have the text already.
        const opened = await openDump(dumps, request, dump);
        if (opened.dump !== dump) validate(ctx, opened.dump);
        await sendFile(ctx, opened.handle, 'text/plain; charset=utf-8');
        return;
      }
      const list = await api.list(deps, q, filter);
      const links = listLinks(new URL(`${baseUrl(ctx)}${ctx.url}`), list.meta, list.data.length);
      if (links !== null) ctx.set('Link', links);
      ctx.body =
        q.format === 'select2'
          ? toSelect2(list, resource.select2)
          : api.show
            ? { ...list, data: list.data.map((r) => show(ctx, r)) }
            : list;
    },
  };
  const { get, create, update } = api;
  if (get)
    handlers[`GET ${path}/:id`] = async (ctx) => {
      ctx.body = { data: show(ctx, await get(ctx.state.deps, idParam(ctx, resource.what))) };
    };
  if (create)
    handlers[`POST ${path}`] = async (ctx) => {
      const record = await create(ctx.state.deps, requiredBody(ctx));
      ctx.status = 201;
      setLocation(ctx, `${path}/${record.id}`);
      ctx.body = { data: show(ctx, record) };
    };
  if (update)
    handlers[`${resource.api.update ?? 'PUT'} ${path}/:id`] = async (ctx) => {
      const id = idParam(ctx, resource.what);
      ctx.body = { data: show(ctx, await update(ctx.state.deps, id, requiredBody(ctx))) };
    };
  return handlers;
}
