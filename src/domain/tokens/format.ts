// Token values: `arc_` + 8-char selector + 40-char secret + 6-char checksum (58 chars, docs/security.md#leaked-tokens-and-secret-scanners).
// Pure code, no I/O: parsing runs before any database query or KDF, so a mistyped value costs a
// few string operations (and, at a token's length, the SHA-256 that looks it up in the cache).
import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const PREFIX = 'arc_';
export const SELECTOR_LENGTH = 8;
const SECRET_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
export const TOKEN_LENGTH = PREFIX.length + SELECTOR_LENGTH + SECRET_LENGTH + CHECKSUM_LENGTH;
export const LEGACY_LENGTH = 60;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// The patterns are written where they are used, not as module constants: Stryker can only
// change what runs after the module is loaded (docs/testing.md, "Mutation testing").

/** Base62 (alphabet 0-9A-Za-z), most significant digit first, left-padded with '0'. */
export function base62(n: number, width: number): string {
  let out = '';
  let rest = n;
  while (rest > 0) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

/** CRC32 (IEEE) of the ASCII selector+secret, as 6 base62 digits (62^6 > 2^32). */
export function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

/** Uniform random base62 string; randomInt draws from the CSPRNG without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export function mint(): { value: string; selector: string; secret: string } {
  const selector = randomBase62(SELECTOR_LENGTH);
  const secret = randomBase62(SECRET_LENGTH);
  return { value: PREFIX + selector + secret + checksum(selector + secret), selector, secret };
}

export interface ParsedToken {
  kind: 'regular' | 'legacy';
  selector: string;
  secret: string;
}

function split(kind: ParsedToken['kind'], body: string): ParsedToken {
  return { kind, selector: body.slice(0, SELECTOR_LENGTH), secret: body.slice(SELECTOR_LENGTH) };
}

/** Selector and secret of a value, or null for a wrong prefix, length, alphabet or checksum. */
export function parse(value: string): ParsedToken | null {
  if (value.length === TOKEN_LENGTH) {
    if (!/^arc_[0-9A-Za-z]{54}$/.test(value)) return null;
    const body = value.slice(PREFIX.length, PREFIX.length + SELECTOR_LENGTH + SECRET_LENGTH);
    return checksum(body) === value.slice(-CHECKSUM_LENGTH) ? split('regular', body) : null;
  }
  return isLegacyValue(value) ? split('legacy', value) : null;
}

export function isLegacyValue(value: string): boolean {
  return /^[0-9A-Za-z]{60}$/.test(value);
}

/** A public token id as shown by `token list` (the selector). */
export function isSelector(id: string): boolean {
  return id.length === SELECTOR_LENGTH && /^[0-9A-Za-z]+$/.test(id);
}
