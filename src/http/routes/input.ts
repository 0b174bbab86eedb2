// What route handlers read from a request: the `:id` path parameter and the body as an object.
import { invalid, notFound } from '../../errors.js';
import { isPlainObject } from '../../domain/catalog/fields.js';
import type { ApiContext } from '../types.js';

// Row ids are PostgreSQL `integer` (serial): a larger number would make the database fail
// the query (a 500) instead of finding nothing.
const MAX_ID = 2_147_483_647;

/**
 * The `:id` path parameter as a positive integer. Anything else (`abc`, `0`, `-1`, `1.5`, `1e3`,
 * `99999999999999999999`) cannot name a row: 404, as for an unknown id.
 */
export function idParam(ctx: ApiContext, what = 'resource'): number {
  const raw = ctx.params.id;
  const n = raw !== undefined && /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n > MAX_ID) throw notFound(`no ${what} with that id`);
  return n;
}

/**
 * The request body as an object of fields: `{}` without a body, a JSON body only when it is an
 * object (an array, string or number is a 422), form fields as parsed, multipart's text fields.
 * Handlers pick the keys they know from it, so `__proto__` or `constructor` keys never reach a
 * prototype.
 */
export function bodyObject(ctx: ApiContext): Record<string, unknown> {
  const body = ctx.state.body;
  switch (body.kind) {
    case 'none':
      return Object.create(null) as Record<string, unknown>;
    case 'json':
      if (!isPlainObject(body.data)) throw invalid('the JSON body must be an object', { body: 'must be a JSON object' });
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

/**
 * The origin the client used (`https://archive.example.org`), for the absolute URLs in BEACON
 * dumps and reconciliation manifests. Behind a proxy (`trustProxy`) the forwarded protocol and
 * host count. A Host header that is not a plain host name or address falls back to the
 * configured listen address, so a crafted header cannot put arbitrary text into those documents.
 */
export function baseUrl(ctx: ApiContext): string {
  const host = ctx.host;
  if (host && /^[A-Za-z0-9.-]+(?::[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::[0-9]{1,5})?$/.test(host)) {
    return `${ctx.protocol}://${host}`;
  }
  const { listen } = ctx.state.deps.config;
  const address = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  return `${ctx.protocol}://${address}:${listen.port}`;
}
