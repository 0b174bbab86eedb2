// Token-shaped values made by the tests themselves: random base62 text and well-formed `arc_`
// values (valid checksum) that no database knows, for forging and for searching logs.
import { randomInt } from 'node:crypto';
import { crc32 } from './upload.js';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `n` random base62 characters. */
export const randomBase62 = (n: number): string => Array.from({ length: n }, () => BASE62[randomInt(62)]).join('');

/** `n` in base62, left-padded with zeros to `width` characters. */
export function base62(n: number, width: number): string {
  let out = '';
  for (let rest = n; rest > 0; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
  return out.padStart(width, '0');
}

/** A well-formed `arc_` value (valid checksum) for a selector (8) and a secret (40); random by default. */
export const arcValue = (selector = randomBase62(8), secret = randomBase62(40)): string =>
  `arc_${selector}${secret}${base62(crc32(selector + secret), 6)}`;
