// docs/security.md#leaked-tokens-and-secret-scanners: `arc_` + 8-char selector + 40-char secret + 6-char checksum (CRC32 IEEE of the
// ASCII selector+secret, base62 0-9A-Za-z, most significant first, left-padded with 0).
// A pure unit test of src/domain/tokens/format.ts; the expected checksums were computed
// independently with Python (zlib.crc32 and a base62 encoder):
//   python3 -c "import zlib; print(zlib.crc32(b'AAAAAAAA' + b'B'*40))"  # 3015080033 -> 3I2y37
import { describe, expect, it } from 'vitest';
import { base62, checksum, mint, parse, isSelector, TOKEN_LENGTH } from '../../src/domain/tokens/format.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// An independent CRC32 (IEEE 802.3, reflected polynomial 0xEDB88320) and base62 encoder,
// so that minted values are checked against code other than the code under test.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(text: string): number {
  let c = 0xffffffff;
  for (const ch of Buffer.from(text, 'ascii')) c = (CRC_TABLE[(c ^ ch) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function toBase62(n: number, width: number): string {
  let out = '';
  let rest = BigInt(n);
  while (rest > 0n) {
    out = ALPHABET[Number(rest % 62n)] + out;
    rest /= 62n;
  }
  return out.padStart(width, '0');
}

// Vectors computed with Python's zlib.crc32 (see above).
const VECTORS: [body: string, crc: number, check: string][] = [
  ['AAAAAAAA' + 'B'.repeat(40), 3015080033, '3I2y37'],
  ['00000000' + '0'.repeat(40), 262235769, '0HkJVB'],
  ['zzzzzzzz' + 'z'.repeat(40), 1243258446, '1M8aJa'],
  ['abcdefgh' + '0123456789'.repeat(4), 3637643631, '3yBBHT'],
];

/** A well-formed value with the given selector and secret. */
const valueOf = (selector: string, secret: string) => `arc_${selector}${secret}${checksum(selector + secret)}`;

describe('token format (docs/security.md#leaked-tokens-and-secret-scanners)', () => {
  describe('base62', () => {
    it('writes digits 0-9A-Za-z, most significant first, left-padded with 0', () => {
      expect(base62(0, 6)).toBe('000000');
      expect(base62(61, 6)).toBe('00000z');
      expect(base62(62, 6)).toBe('000010');
      expect(base62(10, 6)).toBe('00000A');
      expect(base62(36, 6)).toBe('00000a');
      expect(base62(62 ** 5, 6)).toBe('100000');
    });

    it('fits the largest CRC32 (2^32-1) in 6 digits', () => {
      expect(base62(2 ** 32 - 1, 6)).toBe('4gfFC3');
    });
  });

  describe('checksum', () => {
    it.each(VECTORS)('of %s is the base62 CRC32 computed independently', (body, crc, check) => {
      expect(crc32(body)).toBe(crc); // the test's own CRC agrees with Python's
      expect(checksum(body)).toBe(check);
    });
  });

  describe('mint', () => {
    it('makes 58-character values arc_ + selector + secret + checksum', () => {
      for (let i = 0; i < 50; i++) {
        const t = mint();
        expect(t.value).toMatch(/^arc_[0-9A-Za-z]{54}$/);
        expect(t.value).toHaveLength(58);
        expect(TOKEN_LENGTH).toBe(58);
        expect(t.selector).toMatch(/^[0-9A-Za-z]{8}$/);
        expect(t.secret).toMatch(/^[0-9A-Za-z]{40}$/);
        expect(t.value.slice(4, 12)).toBe(t.selector);
        expect(t.value.slice(12, 52)).toBe(t.secret);
        expect(t.value.slice(52)).toBe(toBase62(crc32(t.selector + t.secret), 6));
      }
    });

    it('draws different values each time', () => {
      const values = new Set(Array.from({ length: 200 }, () => mint().value));
      expect(values.size).toBe(200);
    });

    it('produces values that parse back to the same selector and secret', () => {
      for (let i = 0; i < 50; i++) {
        const t = mint();
        expect(parse(t.value)).toEqual({ kind: 'regular', selector: t.selector, secret: t.secret });
      }
    });
  });

  describe('parse', () => {
    const good = valueOf('AAAAAAAA', 'B'.repeat(40));

    it('accepts a well-formed value (fixed vector)', () => {
      expect(good).toBe(`arc_AAAAAAAA${'B'.repeat(40)}3I2y37`);
      expect(parse(good)).toEqual({ kind: 'regular', selector: 'AAAAAAAA', secret: 'B'.repeat(40) });
    });

    it('refuses a wrong prefix', () => {
      expect(parse(`arx_${good.slice(4)}`)).toBeNull();
      expect(parse(`ARC_${good.slice(4)}`)).toBeNull();
      expect(parse(`arc-${good.slice(4)}`)).toBeNull();
    });

    it('refuses a wrong length', () => {
      expect(parse(good.slice(0, -1))).toBeNull();
      expect(parse(`${good}0`)).toBeNull();
      expect(parse('')).toBeNull();
      expect(parse('arc_')).toBeNull();
    });

    it('refuses a character outside the alphabet', () => {
      for (const bad of ['-', '_', '+', '/', '=', ' ', 'é', '\u0000']) {
        const value = `${good.slice(0, 20)}${bad}${good.slice(21)}`;
        expect(value).toHaveLength(58);
        expect(parse(value)).toBeNull();
      }
    });

    it('refuses a value whose checksum does not match (one checksum character flipped)', () => {
      for (let i = 52; i < 58; i++) {
        const c = good[i] as string;
        const flipped = c === '0' ? '1' : '0';
        expect(parse(good.slice(0, i) + flipped + good.slice(i + 1))).toBeNull();
      }
    });

    it('refuses a value with one secret character changed (checksum no longer matches)', () => {
      const t = mint();
      const i = 30;
      const other = t.value[i] === 'a' ? 'b' : 'a';
      expect(parse(t.value.slice(0, i) + other + t.value.slice(i + 1))).toBeNull();
    });

    it('accepts 60-character legacy values, first 8 characters as selector', () => {
      const legacy = 'Lg0000AB' + 'x'.repeat(26) + 'Y9'.repeat(13);
      expect(legacy).toHaveLength(60);
      expect(parse(legacy)).toEqual({ kind: 'legacy', selector: 'Lg0000AB', secret: legacy.slice(8) });
    });

    it('refuses legacy-length values with a character outside the alphabet, and 59/61 characters', () => {
      const legacy = 'A'.repeat(60);
      expect(parse(legacy)).not.toBeNull();
      expect(parse(`${'A'.repeat(59)}_`)).toBeNull();
      expect(parse('A'.repeat(59))).toBeNull();
      expect(parse('A'.repeat(61))).toBeNull();
    });

    it('returns null for malformed values, before any database or KDF work (pure function)', () => {
      // parse() is synchronous and has no I/O: it cannot query a database or run scrypt.
      // (Counting queries and KDF runs for presented Bearer values is the HTTP layer's test.)
      const malformed = ['', 'Bearer', 'arc_short', 'x'.repeat(58), `arc_${'A'.repeat(54)}`, `arc_${'A'.repeat(53)}!`];
      for (const v of malformed) {
        const result = parse(v);
        expect(result).toBeNull();
        expect(result).not.toBeInstanceOf(Promise);
      }
    });
  });

  describe('isSelector', () => {
    it('accepts exactly 8 base62 characters', () => {
      expect(isSelector('AbC12345')).toBe(true);
      expect(isSelector('AbC1234')).toBe(false);
      expect(isSelector('AbC123456')).toBe(false);
      expect(isSelector('AbC_1234')).toBe(false);
    });
  });
});
