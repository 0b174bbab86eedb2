// What route handlers read from a request: the `:id` path parameter and the body as an object.
import { invalid, notFound } from '../../errors.js';
import { isPlainObject } from '../../domain/catalog/fields.js';
import type { Socket } from 'node:net';
import { canonicalAddress } from '../client-address.js';
import type { ApiContext } from '../types.js';
import { parseRowId } from '../../db/row-id.js';
import { floorSecond, notModified } from '../conditional.js';
import type { BeaconDump } from '../../domain/catalog/list/beacon-dump.js';

/** The `:id` path parameter as a row id (db/row-id.ts); anything else names no row: 404. */
export function idParam(ctx: ApiContext, what = 'resource'): number {
  const id = parseRowId(ctx.params.id);
  if (id === null) throw notFound(`no ${what} with that id`);
  return id;
}

/**
 * The request body as an object of fields: `{}` without a body, a JSON body only when it is an
 * object (an array, string or number is a 422), form fields as parsed, multipart's text fields.
 * Handlers pick the keys they know from it: `__proto__` or `constructor` never reach a prototype.
 */
export function bodyObject(ctx: ApiContext): Record<string, unknown> {
  const body = ctx.state.body;
  switch (body.kind) {
    case 'none':
      return Object.create(null) as Record<string, unknown>;
    case 'json':
      if (!isPlainObject(body.data))
        throw invalid('the JSON body must be an object', { body: 'must be a JSON object' });
      return body.data;
    case 'form':
      return body.data;
    case 'multipart':
      return body.fields;
    case 'invalid':
      // The pipeline answers unreadable bodies before any handler runs; this is a safety net.
      throw invalid(body.message);
  }
}

/** bodyObject, where a body is required: none at all is a 422 (a change of nothing is a mistake). */
export function requiredBody(ctx: ApiContext): Record<string, unknown> {
  if (ctx.state.body.kind === 'none') throw invalid('a body is required', { body: 'required' });
  return bodyObject(ctx);
}

/**
 * The base of the absolute URLs the API writes (Location, the reconciliation manifests, BEACON's
 * #TARGET): `publicUrl` when set, else the daemon's own origin as this connection reached it — its
 * scheme, the local address of the socket and the port. Never the request's Host or X-Forwarded-*:
 * a client (or a cache in front) would choose where others are sent, tokens included, and every
 * distinct value would cost a BEACON dump of its own. Behind a proxy `publicUrl` is required.
 */
export function baseUrl(ctx: ApiContext): string {
  const { publicUrl } = ctx.state.deps.config;
  if (publicUrl) return publicUrl;
  const socket = ctx.req.socket as Socket & { encrypted?: boolean };
  const local = socket.localAddress;
  // A client that has gone takes the socket's addresses with it; nothing is sent to it any more,
  // so the origin only has to be well-formed.
  if (local === undefined) return 'http://localhost';
  const address = canonicalAddress(local) ?? local;
  const host = address.includes(':') ? `[${address}]` : address;
  return `${socket.encrypted ? 'https' : 'http'}://${host}:${socket.localPort ?? 0}`;
}

/** `Location` of a created resource: its absolute URL (RFC 9110 §10.2.2), from baseUrl. */
export function setLocation(ctx: ApiContext, path: string): void {
  ctx.set('Location', `${baseUrl(ctx)}${path}`);
}

/**
 * Sets a document's validators (ETag, Last-Modified, `Cache-Control: no-cache`) and says whether
 * the client's copy is current (answer 304). Last-Modified only once its second has passed: HTTP
 * dates have whole seconds, so a client revalidating with If-Modified-Since alone (wget -N,
 * curl -z) would be told "not modified" after a second change within it (RFC 9110 §8.8.2.2).
 */
export function validate(ctx: ApiContext, { etag, lastModified: changed }: BeaconDump): boolean {
  const now = ctx.state.deps.clock.now();
  const lastModified = changed && floorSecond(changed.getTime()) < floorSecond(now.getTime()) ? changed : null;
  ctx.set('ETag', etag);
  // Date from the same instant the rule above read: Node's own Date header, refreshed on a timer,
  // lags behind the clock when the event loop is busy and could show Last-Modified's very second.
  ctx.set('Date', now.toUTCString());
  if (lastModified) ctx.set('Last-Modified', lastModified.toUTCString());
  else ctx.remove('Last-Modified');
  ctx.set('Cache-Control', 'no-cache');
  return notModified(ctx, etag, lastModified);
}
