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

function decode(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
}

/** The raw query string with the value of every api_token parameter replaced by [REDACTED]. */
export function redactQuery(raw: string): string {
  if (!raw) return raw;
  return raw
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq === -1 ? pair : pair.slice(0, eq);
      return isApiTokenKey(decode(key)) ? `${key}=[REDACTED]` : pair;
    })
    .join('&');
}

export function queryHasApiToken(raw: string): boolean {
  if (!raw) return false;
  return raw.split('&').some((pair) => {
    const eq = pair.indexOf('=');
    return isApiTokenKey(decode(eq === -1 ? pair : pair.slice(0, eq)));
  });
}
