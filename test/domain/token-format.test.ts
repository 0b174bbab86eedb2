// Token values (src/domain/tokens/format.ts) through its exported functions: what is read as a
// value, a legacy value or a selector, and what is not, one character off at either end.
import { describe, expect, it } from 'vitest';
import {
  checksum,
  isLegacyValue,
  isSelector,
  LEGACY_LENGTH,
  mint,
  parse,
  PREFIX,
  randomBase62,
  TOKEN_LENGTH,
} from '../../src/domain/tokens/format.js';

describe('token values', () => {
  it('are minted 58 characters long and parsed back into their selector and secret', () => {
    const { value, selector, secret } = mint();
    expect(value).toHaveLength(58);
    expect(TOKEN_LENGTH).toBe(58);
    expect(value).toMatch(/^arc_[0-9A-Za-z]{54}$/);
    expect(parse(value)).toEqual({ kind: 'regular', selector, secret });
  });

  it('are refused with a character outside base62, a wrong prefix or a wrong checksum', () => {
    const selector = randomBase62(8);
    const secret = `${randomBase62(39)}-`;
    expect(parse(`${PREFIX}${selector}${secret}${checksum(selector + secret)}`)).toBeNull();
    const { value } = mint();
    expect(parse(`arx_${value.slice(4)}`)).toBeNull();
    const last = value.at(-1) === '0' ? '1' : '0';
    expect(parse(`${value.slice(0, -1)}${last}`)).toBeNull();
  });

  it('of the legacy form are 60 base62 characters, nothing before or after', () => {
    const legacy = randomBase62(LEGACY_LENGTH);
    expect(isLegacyValue(legacy)).toBe(true);
    expect(parse(legacy)).toEqual({ kind: 'legacy', selector: legacy.slice(0, 8), secret: legacy.slice(8) });
    expect(isLegacyValue(`-${legacy}`)).toBe(false);
    expect(isLegacyValue(`${legacy}-`)).toBe(false);
    expect(isLegacyValue(`${legacy.slice(1)}-`)).toBe(false);
    expect(parse(`${legacy.slice(1)}-`)).toBeNull();
  });
});

describe('selectors', () => {
  it('are 8 base62 characters, a character outside base62 anywhere refused', () => {
    expect(isSelector('aZ09bY18')).toBe(true);
    for (const id of ['-Z09bY18', 'aZ09bY1-', 'aZ0-bY18', 'aZ09bY1', 'aZ09bY189'])
      expect(isSelector(id), id).toBe(false);
  });
});
