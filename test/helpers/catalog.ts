// Catalogue facts as docs/http-api.md#http-api states them, written out here (not imported from src/) so that a
// change in the code that contradicts the specification fails the tests that use them.

/** The actor types, in the order docs/http-api.md#http-api lists them. */
export const ACTOR_TYPES = ['person', 'family', 'corporate_body', 'organisational_unit', 'group', 'software'];

/** The fields a client may send when creating an actor. */
export const ACTOR_FIELDS = ['name', 'type', 'label', 'alternative_names', 'date_start', 'date_end', 'comment', 'gnd'];

/** The fields a client may send when creating a place. */
export const PLACE_FIELDS =
  'name label city state address country_code location alternative_names comment gnd geonames'.split(' ');

/** The query parameters routes read: docs/http-api.md's list parameters, `ids` (TEI) and `queries` (reconciliation). */
export const QUERY_PARAMETERS = [
  ...['page', 'perPage', 'sortField', 'sortAsc', 'format', 'search', 'provider'],
  ...['ids', 'queries'],
];
