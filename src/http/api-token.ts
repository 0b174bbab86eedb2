// Step 1 of docs/http-api.md: a parameter named `api_token` anywhere (query, urlencoded or multipart
// form, top-level JSON key), with any value, is refused first, even with a valid header and on
// open endpoints: tokens stay out of proxy logs and browser history. The value is never logged.

/** `api_token`, and the array forms a PHP-style parser would read as it (`api_token[]`, `api_token[x]`). */
export function isApiTokenKey(key: string): boolean {
  // Runs before authentication: a parser's nameless part (undefined) must not crash it.
  return typeof key === 'string' && (key === 'api_token' || key.startsWith('api_token['));
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

/** Whether the raw key from `start` to `end` (or `=`) decodes to `api_token` or `api_token[…`, in one scan. */
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
