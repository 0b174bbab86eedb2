// The building blocks every query reader shares: a repeated parameter is refused, an empty one
// is absent, whole numbers are digits only and within their range.
import { describe, expect, it } from 'vitest';
import { optionalParam, param, wholeNumber } from '../../src/domain/catalog/list/params.js';
import { check, oneOf, v } from '../../src/validation.js';

const schema = v.object({
  page: param(wholeNumber(1, 1000), 1),
  sort: param(oneOf(['id', 'name']), 'id'),
  type: optionalParam(v.string()),
});

describe('query parameters', () => {
  it('takes given values and falls back when absent or empty', () => {
    expect(check(schema, { page: '7', sort: 'name', type: 'x' })).toEqual({
      ok: true,
      value: { page: 7, sort: 'name', type: 'x' },
    });
    expect(check(schema, {})).toEqual({ ok: true, value: { page: 1, sort: 'id', type: undefined } });
    expect(check(schema, { page: '', sort: '', type: '' })).toEqual({
      ok: true,
      value: { page: 1, sort: 'id', type: undefined },
    });
  });

  it.each(['0', '1001', '-1', '+1', '1e3', '0x10', '1.5', ' 1', '99999999999'])('refuses page=%j', (page) => {
    expect(check(schema, { page })).toEqual({ ok: false, errors: { page: 'must be an integer from 1 to 1000' } });
  });

  it('refuses a repeated parameter and an unknown word, naming each', () => {
    expect(check(schema, { page: ['1', '2'], sort: 'colour', type: ['a', 'b'] })).toEqual({
      ok: false,
      errors: { page: 'must be given once', sort: 'must be one of id, name', type: 'must be given once' },
    });
  });
});
