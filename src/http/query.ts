// `ctx.query`, parsed once per distinct query string rather than once per request: Koa's parse
// (URLSearchParams, then one property at a time) cost the first `ctx.query` of GET /api/actors
// 7-9 us of a request's ~350 in a busy daemon, and lists are asked the same few query strings
// over and over. The parse is Koa's own; the object is frozen, as requests share it, and what
// derives from it alone may be remembered with it (the list parameters: parseListQuery).
import type Koa from 'koa';
import type { QueryInput } from '../domain/catalog/list/params.js';
import { Remembered } from '../remembered.js';

/** Query strings longer than this get Koa's own parse, once per request, and are not shared. */
const REMEMBERED_LENGTH = 256;
/** Query strings remembered: 256 characters hold at most ~85 parameters, a few MB if all are hostile. */
const REMEMBERED = 500;

/** The accessor of `name` where `object` or its prototypes define it. */
function accessorOf(object: object, name: string): PropertyDescriptor | undefined {
  for (let o: object | null = object; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    const own = Object.getOwnPropertyDescriptor(o, name);
    if (own) return own;
  }
  return undefined;
}

/** Makes `app`'s `ctx.query` a frozen object shared by every request with the same query string. */
export function shareParsedQueries(app: Koa): void {
  const koaQuery = accessorOf(app.request, 'query');
  const koaParse = koaQuery?.get;
  if (!koaParse) throw new Error("Koa's request has no query getter to share");
  const remembered = new Remembered<string, QueryInput>(REMEMBERED);
  Object.defineProperty(app.request, 'query', {
    configurable: true,
    enumerable: koaQuery.enumerable ?? true,
    get(this: Koa.Request): QueryInput {
      const text = this.querystring;
      // Koa's getter parses and keeps the parse for this request: a long string stays Koa's.
      if (text.length > REMEMBERED_LENGTH) return koaParse.call(this) as QueryInput;
      return remembered.get(text, () => {
        const parsed = koaParse.call(this) as QueryInput;
        for (const value of Object.values(parsed)) if (Array.isArray(value)) Object.freeze(value);
        return Object.freeze(parsed);
      });
    },
    // Koa's own setter: it writes the query string, which the getter then reads.
    set: koaQuery.set,
  });
}
