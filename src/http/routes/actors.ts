// /api/actors: list (json, select2, beacon, narrowed by Anton's `authority_type`), one actor,
// create, change with PUT; records carry Anton's fields (full_id, fullname, authority_type).
import { actorsBeacon, createActor, listActors, updateActor } from '../../domain/catalog/actors.js';
import { AUTHORITY_TYPES, antonActor, parseAuthorityTypeFilter } from '../../domain/catalog/anton/fields.js';
import { optionalParam, shortText } from '../../domain/catalog/list/params.js';
import { ACTOR } from '../../domain/catalog/resources/index.js';
import { v } from '../../validation.js';
import { catalogRoutes } from './catalog-routes.js';

/** A word in any case: `[pP][eE]…`. */
const anyCase = (word: string) =>
  [...word].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`)).join('');

/**
 * What authorityTypeOf takes, as a pattern: a code (`_` or a space), a label in any case, or a
 * `type_id`, with spaces around it.
 */
const AUTHORITY_TYPE_PATTERN = `^\\s*(0?[1-${AUTHORITY_TYPES.length}]|${[
  ...new Set(
    AUTHORITY_TYPES.flatMap((t) => [t.code, t.code.replace(/_/g, ' '), ...t.labels]).map((w) => w.toLowerCase()),
  ),
]
  .map(anyCase)
  .join('|')})\\s*$`;

/** The filter as parseAuthorityTypeFilter reads it, described with the words it takes. */
const AUTHORITY_TYPE_DESCRIBED = v.object({
  authority_type: optionalParam(v.pipe(shortText(), v.metadata({ pattern: AUTHORITY_TYPE_PATTERN }))),
});

export const routes = catalogRoutes({
  resource: ACTOR,
  filter: {
    parse: (query) => ({ type: parseAuthorityTypeFilter(query) }),
    schema: AUTHORITY_TYPE_DESCRIBED,
    words: { authority_type: 'a type: its code, label (in any case) or `type_id` (Anton)' },
  },
  list: listActors,
  beacon: actorsBeacon,
  show: antonActor,
  create: createActor,
  update: updateActor,
});
