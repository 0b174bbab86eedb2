// `ctx.query`, parsed once per distinct query string rather than once per request. Koa parses
// the query string of each request afresh (URLSearchParams, then one property at a time); timed
// inside a busy daemon, that first `ctx.query` of GET /api/actors cost 7-9 us of a request's
// ~350, and lists are asked the same few query strings over and over. The parse is Koa's own, so the values are
// exactly what Koa gives; the parsed object is frozen, because requests share it, and what
// derives from it alone may be remembered with it (the list parameters: parseListQuery).
import type Koa from 'koa';
import koaSearchParams from 'koa/lib/search-params.js';
import type { QueryInput } from '../domain/catalog/query-params.js';

/** Query strings longer than this are parsed once per request and not remembered. */
const REMEMBERED_LENGTH = 256;
/**
 * Distinct query strings remembered; the memory is emptied when it holds this many. A string of
 * 256 characters parses to at most ~85 parameters: a few MB even if every string is hostile.
 */
const REMEMBERED = 500;

/** A request's own parse of a query string too long to be remembered (as Koa keeps it per request). */
const OWN_PARSE = Symbol('own parse');

type ParsingRequest = Koa.Request & { [OWN_PARSE]?: { text: string; query: QueryInput } };

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
  const remembered = new Map<string, QueryInput>();
  const parse = (text: string): QueryInput => {
    let query = remembered.get(text);
    if (query === undefined) {
      const parsed = koaSearchParams.parse(text);
      for (const value of Object.values(parsed)) if (Array.isArray(value)) Object.freeze(value);
      query = Object.freeze(parsed);
      if (text.length <= REMEMBERED_LENGTH) {
        if (remembered.size >= REMEMBERED) remembered.clear();
        remembered.set(text, query);
      }
    }
    return query;
  };
  const koaQuery = accessorOf(app.request, 'query');
  Object.defineProperty(app.request, 'query', {
    configurable: true,
    enumerable: koaQuery?.enumerable ?? true,
    get(this: ParsingRequest) {
      const text = this.querystring;
      if (text.length <= REMEMBERED_LENGTH) return parse(text);
      const own = this[OWN_PARSE];
      if (own !== undefined && own.text === text) return own.query;
      const query = parse(text);
      this[OWN_PARSE] = { text, query };
      return query;
    },
    // Koa's own setter: it writes the query string, which the getter then reads.
    set: koaQuery?.set,
  });
}
