// Alternative list formats (docs/http-api.md): select2 for selection widgets; BEACON link dumps for
// authority-file aggregators are in beacon.ts (its parser and renderer stay importable from here).
import type { ListResult } from './query.js';

export { parseBeaconProvider, renderBeacon } from './beacon.js';

/** `pagination.more` is select2's own paging hint: whether a further page exists. */
export function toSelect2<T extends { id: number }>(list: ListResult<T>, textOf: (item: T) => string) {
  const { page, perPage, total, total_exact: exact } = list.meta;
  // An inexact total is a lower bound: a full page then says there may be more.
  const more = page * perPage < total || (exact === false && list.data.length === perPage);
  return {
    results: list.data.map((item) => ({ id: item.id, text: textOf(item) })),
    pagination: { more },
  };
}
