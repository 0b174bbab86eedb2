// The routes of one catalogue resource, from its description (domain/catalog/resources/) and its
// operations (list, BEACON dump, one record, create, change): route files say only what differs.
import { accessRow, resourcePath } from '../../domain/access.js';
import type { Ctx } from '../../domain/context.js';
import { parseBeaconProvider, providerSchema, type BeaconProvider } from '../../domain/catalog/list/beacon.js';
import { beaconDump, openDump, type DumpRequest } from '../../domain/catalog/list/beacon-dump.js';
import { exportsDir } from '../../domain/catalog/export-file.js';
import { toSelect2 } from '../../domain/catalog/list/formats.js';
import { listLinks } from '../../domain/catalog/list/links.js';
import {
  listParams,
  parseListQuery,
  type ListQuery,
  type ListResult,
  type QueryInput,
} from '../../domain/catalog/list/query.js';
import { listRecords } from '../../domain/catalog/list/records.js';
import type { Resource } from '../../domain/catalog/resources/index.js';
import { readRecord, type FieldSpecs } from '../../domain/catalog/record-schema.js';
import { createRecord, getRecord, updateRecord } from '../../domain/catalog/records.js';
import type { v } from '../../validation.js';
import { dataOf, FORM_TYPE, JSON_TYPE, recordName, ref, type Answer, type Route } from '../route.js';
import type { ApiContext } from '../types.js';
import { sendFile } from '../send-file.js';
import { baseUrl, idParam, requiredBody, setLocation, validate } from './input.js';

export interface CatalogRoutes<R extends { id: number }, Filter, B extends BeaconProvider> {
  resource: Resource<R, FieldSpecs, string, B>;
  /** The resource's own list parameters (read after the common ones), and their schema. */
  filter?: { parse: (query: QueryInput) => Filter; schema: v.GenericSchema; words: Record<string, string> };
  /** The operations below default to the plain ones of domain/catalog/records.ts; each route is offered where `resource.api` says. */
  list?: (ctx: Ctx, q: ListQuery, filter: Filter) => Promise<ListResult<R>>;
  /** The BEACON dump a request asks for (built and sent from a file: list/beacon-dump.ts). */
  beacon?: (provider: B, baseUrl: string, filter: Filter) => DumpRequest;
  /** A record as the API answers it (Anton's derived fields added); the record itself when absent. */
  show?: (record: R, slug: string) => unknown;
  get?: (ctx: Ctx, id: number) => Promise<R>;
  create?: (ctx: Ctx, body: Record<string, unknown>) => Promise<R>;
  /** Changes a record on its URL, by the method its description names (`api.update`). */
  update?: (ctx: Ctx, id: number, body: Record<string, unknown>) => Promise<R>;
}

const LIST_WORDS: Record<string, string> = {
  search: 'a case-insensitive substring of the searched names',
  page: 'the page, from 1 (not with `cursor`)',
  perPage: 'entries a page',
  sortField: 'the sort',
  sortAsc: '1/true ascending, 0/false descending',
  format: '`json` (`{data, meta}`), `select2` (`{results, pagination}`) or `beacon` (a BEACON link dump, text/plain)',
  cursor: "keyset paging: `start`, then each answer's `meta.next_cursor`",
  provider: 'with `format=beacon`: the authority file whose ids the dump links',
};

const UNCHANGED: Answer = {
  description: 'The BEACON dump is unchanged (If-None-Match, If-Modified-Since)',
  headers: ['ETag', 'LastModified'],
};

/** A list's answers: a page (JSON or select2), and where the resource has BEACON, the dump. */
function listAnswers(table: string, name: string, beacon: boolean): Route['answers'] {
  const answers: Route['answers'] = {
    200: {
      description: beacon
        ? `A page of ${table} (Link), or the BEACON dump (ETag, Last-Modified)`
        : `A page of ${table}`,
      content: {
        [JSON_TYPE]: { oneOf: [ref(`${name}List`), ref('Select2')] },
        ...(beacon ? { 'text/plain': { type: 'string', description: 'a BEACON link dump' } } : {}),
      },
      headers: beacon ? ['Link', 'ETag', 'LastModified'] : ['Link'],
    },
    422: 'Invalid',
  };
  if (beacon) answers[304] = UNCHANGED;
  return answers;
}

const article = (what: string) => (/^[aeiou]/.test(what) ? 'an' : 'a');

/** A create or change body: JSON, or a form of the same fields. */
const fieldsBody = (name: string) => ({
  required: true,
  content: { [JSON_TYPE]: ref(name), [FORM_TYPE]: ref(`${name}Form`) },
});

export function catalogRoutes<R extends { id: number }, Filter, B extends BeaconProvider>(
  api: CatalogRoutes<R, Filter, B>,
): Route[] {
  const { resource } = api;
  const { table, what } = resource;
  const listOf = api.list ?? ((ctx: Ctx, q: ListQuery) => listRecords(ctx, resource, q));
  const get = resource.api.record && (api.get ?? ((ctx: Ctx, id: number) => getRecord(ctx, resource, id)));
  const create =
    resource.api.create &&
    (api.create ?? ((ctx: Ctx, body: unknown) => createRecord(ctx, resource, readRecord(resource.input.create, body))));
  const update =
    resource.api.update &&
    (api.update ??
      ((ctx: Ctx, id: number, body: unknown) =>
        updateRecord(ctx, resource, id, readRecord(resource.input.update, body), (_, values) => values)));
  const path = resourcePath(resource);
  const name = recordName(what);
  const record = ref(name);
  const show = (ctx: ApiContext, r: R) => (api.show ? api.show(r, ctx.state.deps.config.slug) : r);
  const beacon = api.beacon !== undefined && resource.beacon !== undefined;
  const routes: Route[] = [
    {
      ...accessRow('GET', path, resource.api.list, table, resource.beacon ? { heavy: 'beacon' } : {}),
      summary: `List ${table}`,
      query: [
        listParams(resource.listOptions),
        ...(resource.beacon ? [providerSchema(resource.beacon.providers)] : []),
        ...(api.filter ? [api.filter.schema] : []),
      ],
      words: { ...LIST_WORDS, ...api.filter?.words },
      answers: listAnswers(table, name, beacon),
      handler: async (ctx) => {
        const { deps } = ctx.state;
        const q = parseListQuery(ctx.query, resource.listOptions, ctx.querystring);
        const filter = api.filter?.parse(ctx.query) as Filter;
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
        const list = await listOf(deps, q, filter);
        const links = listLinks(new URL(`${baseUrl(ctx)}${ctx.url}`), list.meta, list.data.length);
        if (links !== null) ctx.set('Link', links);
        ctx.body =
          q.format === 'select2'
            ? toSelect2(list, resource.select2)
            : api.show
              ? { ...list, data: list.data.map((r) => show(ctx, r)) }
              : list;
      },
    },
  ];
  if (get)
    routes.push({
      ...accessRow('GET', `${path}/:id`, 'authority', table),
      summary: `Read one ${what}`,
      query: [],
      answers: { 200: { description: `The ${what}`, content: { [JSON_TYPE]: dataOf(record) } }, 404: 'NotFound' },
      handler: async (ctx) => {
        ctx.body = { data: show(ctx, await get(ctx.state.deps, idParam(ctx, what))) };
      },
    });
  if (create)
    routes.push({
      ...accessRow('POST', path, 'editor', table, { scope: 'catalog:write' }),
      summary: `Create ${article(what)} ${what}`,
      query: [],
      body: fieldsBody(`${name}Create`),
      answers: {
        201: { description: `The new ${what}`, content: { [JSON_TYPE]: dataOf(record) }, headers: ['Location'] },
        422: 'Invalid',
      },
      handler: async (ctx) => {
        const created = await create(ctx.state.deps, requiredBody(ctx));
        ctx.status = 201;
        setLocation(ctx, `${path}/${created.id}`);
        ctx.body = { data: show(ctx, created) };
      },
    });
  if (update)
    routes.push({
      ...accessRow(resource.api.update ?? 'PUT', `${path}/:id`, 'editor', table, { scope: 'catalog:write' }),
      summary: `Change ${article(what)} ${what} (the fields given)`,
      query: [],
      body: fieldsBody(`${name}Change`),
      answers: {
        200: { description: `The changed ${what}`, content: { [JSON_TYPE]: dataOf(record) } },
        404: 'NotFound',
        422: 'Invalid',
      },
      handler: async (ctx) => {
        const id = idParam(ctx, what);
        ctx.body = { data: show(ctx, await update(ctx.state.deps, id, requiredBody(ctx))) };
      },
    });
  return routes;
}
