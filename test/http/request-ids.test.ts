// Generated request ids come from a pool of random bytes refilled when spent: across refills
// they stay 12 URL-safe characters and never repeat.
import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/http/observe/request-id.js';

describe('generated request ids', () => {
  it('are 12 URL-safe characters, all different across several refills of the pool', () => {
    const ids = Array.from({ length: 2_000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
