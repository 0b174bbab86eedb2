import { describe, expect, it } from 'vitest';
import { DEFAULT_SOURCE, parseUsage, type ValueSource } from '../../src/domain/catalog/ai-usage.js';
import { AppError } from '../../src/errors.js';

const VALID = {
  provider: 'openai',
  model: 'gpt-4o-mini',
  tokens_in: 1200,
  tokens_out: 350,
  cost_chf: 0.0042,
  success: true,
};

/** The `fields` of the 422, or a failure when the record was accepted. */
function problems(input: Record<string, unknown>, from: ValueSource = 'json'): Record<string, string> {
  try {
    parseUsage(input, from);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).kind).toBe('invalid');
    return (err as AppError).fields ?? {};
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('AI-cataloging usage record', () => {
  it('accepts a minimal JSON record and fills the defaults', () => {
    expect(parseUsage({ ...VALID }, 'json')).toEqual({
      ...VALID,
      latency_ms: null,
      profile_slug: null,
      entry_uuid: null,
      source: DEFAULT_SOURCE,
    });
  });

  it('accepts every optional field', () => {
    const r = parseUsage(
      {
        ...VALID,
        latency_ms: 812,
        profile_slug: 'letters-19c',
        entry_uuid: '3f2b8c1e-9a4d-4c1b-8e2f-0a1b2c3d4e5f',
        source: 'agate-cli',
      },
      'json',
    );
    expect(r).toMatchObject({ latency_ms: 812, profile_slug: 'letters-19c', source: 'agate-cli' });
    expect(r.entry_uuid).toHaveLength(36);
  });

  it('accepts zero tokens, zero cost and a failed call', () => {
    expect(parseUsage({ ...VALID, tokens_in: 0, tokens_out: 0, cost_chf: 0, success: false }, 'json')).toMatchObject({
      tokens_in: 0,
      cost_chf: 0,
      success: false,
    });
  });

  it('names every missing required field', () => {
    expect(Object.keys(problems({})).sort()).toEqual([
      'cost_chf',
      'model',
      'provider',
      'success',
      'tokens_in',
      'tokens_out',
    ]);
  });

  it('names every bad field at once', () => {
    const f = problems({
      provider: '',
      model: 'x'.repeat(129),
      tokens_in: -1,
      tokens_out: 1.5,
      cost_chf: -0.01,
      success: 'yes',
      latency_ms: -3,
      profile_slug: 'p'.repeat(129),
      entry_uuid: 'u'.repeat(37),
      source: 's'.repeat(33),
    });
    expect(Object.keys(f).sort()).toEqual(
      [
        'cost_chf',
        'entry_uuid',
        'latency_ms',
        'model',
        'profile_slug',
        'provider',
        'source',
        'success',
        'tokens_in',
        'tokens_out',
      ].sort(),
    );
  });

  it.each([
    ['provider', 42],
    ['provider', '   '],
    ['provider', 'p'.repeat(65)],
    ['model', ''],
    ['model', null],
    ['tokens_in', '12'], // JSON carries types: a string is not a number
    ['tokens_in', 2 ** 53],
    ['tokens_in', 1e300],
    ['tokens_out', true],
    ['tokens_out', null],
    ['cost_chf', '0.5'],
    ['cost_chf', -1],
    ['success', 1],
    ['success', 'true'],
    ['success', null],
    ['latency_ms', 2 ** 31],
    ['latency_ms', 1.25],
    ['latency_ms', '5'],
    ['profile_slug', 7],
    ['entry_uuid', ['a']],
    ['source', false],
  ])('refuses %s = %j with that field named', (field, value) => {
    const f = problems({ ...VALID, [field]: value });
    expect(Object.keys(f)).toEqual([field]);
    expect(typeof f[field]).toBe('string');
  });

  it('counts characters, not UTF-16 units, for lengths', () => {
    expect(parseUsage({ ...VALID, provider: '\u{1F600}'.repeat(64) }, 'json').provider).toHaveLength(128);
    expect(Object.keys(problems({ ...VALID, provider: '\u{1F600}'.repeat(65) }))).toEqual(['provider']);
  });

  it('refuses unknown fields by name, including prototype keys, without polluting anything', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1, "tokens": 5}') as Record<
      string,
      unknown
    >;
    const f = problems({ ...VALID, ...input });
    expect(Object.keys(f).sort()).toEqual(['__proto__', 'constructor', 'tokens']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(f)).toBe(Object.prototype);
  });

  it('treats null and "" in optional fields as not given', () => {
    expect(
      parseUsage({ ...VALID, latency_ms: null, profile_slug: '', entry_uuid: null, source: '' }, 'json'),
    ).toMatchObject({
      latency_ms: null,
      profile_slug: null,
      entry_uuid: null,
      source: DEFAULT_SOURCE,
    });
  });

  describe('from a form (every value a string)', () => {
    const FORM = {
      provider: 'openai',
      model: 'm',
      tokens_in: '10',
      tokens_out: '0',
      cost_chf: '0.0125',
      success: 'true',
    };

    it('coerces digits, plain decimals and true/false/1/0', () => {
      expect(parseUsage({ ...FORM, latency_ms: '250' }, 'form')).toMatchObject({
        tokens_in: 10,
        tokens_out: 0,
        cost_chf: 0.0125,
        success: true,
        latency_ms: 250,
      });
      expect(parseUsage({ ...FORM, success: 'false' }, 'form').success).toBe(false);
      expect(parseUsage({ ...FORM, success: '1' }, 'form').success).toBe(true);
      expect(parseUsage({ ...FORM, success: '0' }, 'form').success).toBe(false);
      expect(parseUsage({ ...FORM, latency_ms: '' }, 'form').latency_ms).toBeNull();
    });

    it.each([
      ['tokens_in', '-1'],
      ['tokens_in', '1.0'],
      ['tokens_in', '1e3'],
      ['tokens_in', ' 1'],
      ['tokens_in', '0x10'],
      ['tokens_in', ''],
      ['tokens_in', '99999999999999999'],
      ['cost_chf', '1e-3'],
      ['cost_chf', '.5'],
      ['cost_chf', 'NaN'],
      ['cost_chf', 'Infinity'],
      ['success', 'yes'],
      ['success', 'TRUE'],
      ['success', ''],
      ['latency_ms', 'fast'],
      ['provider', ['a', 'b']], // a repeated key
      ['model', { nested: 'x' }],
    ])('refuses %s = %j with that field named', (field, value) => {
      expect(Object.keys(problems({ ...FORM, [field]: value }, 'form'))).toEqual([field]);
    });
  });
});
