// RFC 8288 `Link` header of a list page: `first`, `prev`, `next`, `last` by `page`; with a cursor
// only `next` (a keyset walk has no numbered pages). Built from the request's own query, so every
// other parameter (search, sort, format) carries over; `page` (or `cursor`) is replaced.
import type { ListMeta } from './query.js';

/** Query strings longer than this get no links: four copies could push the head past clients' 16 KiB limit. */
const LINKED_QUERY_CHARS = 2048;

/** The header's value for a page answered from `url` (absolute), or null when there is no link. */
export function listLinks(url: URL, meta: ListMeta, rows: number): string | null {
  if (url.search.length > LINKED_QUERY_CHARS) return null;
  // One copy of the query for all links: each sets its `page` or `cursor`, the rest stays as sent.
  const query = new URLSearchParams(url.search);
  const path = `${url.origin}${url.pathname}`;
  const at = (name: 'page' | 'cursor', value: string | number) => {
    query.set(name, String(value));
    return `${path}?${query}`;
  };
  const links: [string, string][] = [];
  if (meta.next_cursor !== undefined) {
    if (meta.next_cursor !== null) links.push(['next', at('cursor', meta.next_cursor)]);
  } else {
    const { page, perPage, total } = meta;
    // An inexact total is a lower bound: a full page may have a next one, and no last is known.
    const last = Math.max(1, Math.ceil(total / perPage));
    const more = page < last || (meta.total_exact === false && rows === perPage);
    links.push(['first', at('page', 1)]);
    if (page > 1) links.push(['prev', at('page', Math.min(page - 1, last))]);
    if (more) links.push(['next', at('page', page + 1)]);
    if (meta.total_exact !== false) links.push(['last', at('page', last)]);
  }
  return links.length === 0 ? null : links.map(([rel, href]) => `<${href}>; rel="${rel}"`).join(', ');
}
