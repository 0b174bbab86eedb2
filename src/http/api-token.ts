// Step 1 of SPEC §4.1: a parameter named `api_token` anywhere (query, urlencoded or multipart
// form, top-level JSON key), with any value, is refused before anything else, even with a valid
// header and on open endpoints. The old scheme accepted it; keeping it out of URLs keeps
// tokens out of proxy logs and browser history. The value is never logged.

/** `api_token`, and the array forms a PHP-style parser would read as it (`api_token[]`, `api_token[x]`). */
export function isApiTokenKey(key: string): boolean {
  return key === 'api_token' || key.startsWith('api_token[');
}

export const API_TOKEN_MESSAGE =
  'The api_token parameter is no longer accepted. Send the token in the header: Authorization: Bearer <token>';

const NAME = 'api_token';
const EQ = 0x3d; // =
const PLUS = 0x2b; // +
const PERCENT = 0x25; // %
const BRACKET = 0x5b; // [

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/**
 * Whether the raw key that starts at `start` (and ends at `end`, or at the first `=`) decodes to
 * `api_token` or `api_token[…`. Both names are ASCII, so a key can only decode to them through
 * `+` (a space, which never matches) and `%XX` escapes below 0x80; any other `%` is a literal
 * character for this purpose (where a strict decoder would throw, a lenient one like PHP's keeps
 * it as is). At most ten decoded characters are looked at: no exception, no allocation, and a
 * cost bounded per key, so a whole query or form costs one linear scan.
 */
function keyNamesApiToken(raw: string, start: number, end: number): boolean {
  let matched = 0;
  let i = start;
  while (i < end) {
    let c = raw.charCodeAt(i);
    if (c === EQ) break;
    if (c === PERCENT && i + 2 < end) {
      const hi = hexValue(raw.charCodeAt(i + 1));
      const lo = hexValue(raw.charCodeAt(i + 2));
      if (hi >= 0 && hi < 8 && lo >= 0) {
        c = hi * 16 + lo;
        i += 3;
      } else i += 1;
    } else {
      if (c === PLUS) c = 0x20;
      i += 1;
    }
    if (matched < NAME.length) {
      if (c !== NAME.charCodeAt(matched)) return false;
      matched++;
    } else return c === BRACKET;
  }
  return matched === NAME.length;
}

/** Whether a raw query string or urlencoded form names an api_token parameter. Linear, throw-free. */
export function queryHasApiToken(raw: string): boolean {
  let start = 0;
  while (start < raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    if (keyNamesApiToken(raw, start, end)) return true;
    start = end + 1;
  }
  return false;
}

/** The raw query string with the value of every api_token parameter replaced by [REDACTED]. */
export function redactQuery(raw: string): string {
  if (!queryHasApiToken(raw)) return raw;
  return raw
    .split('&')
    .map((pair) => (keyNamesApiToken(pair, 0, pair.length) ? `${pair.replace(/=.*/s, '')}=[REDACTED]` : pair))
    .join('&');
}
