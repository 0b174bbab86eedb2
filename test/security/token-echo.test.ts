// A token value pasted into a URL never comes back in an answer: the 404 that names an unknown
// path shows the token's public id and no more.
import { describe, expect, it } from 'vitest';
import { checksum, randomBase62 } from '../../src/domain/tokens/format.js';
import { useDaemon } from '../helpers/daemon.js';

const { daemon } = useDaemon();

describe('answers to a path holding a token value', () => {
  it('name the path with the secret cut out', async () => {
    const id = randomBase62(8);
    const secret = randomBase62(40);
    const value = `arc_${id}${secret}${checksum(id + secret)}`;
    for (const path of [`/${value}`, `/api/nothing/${value}`, `/api/${randomBase62(60)}`]) {
      const res = await daemon().fetch(path);
      const text = await res.text();
      expect(res.status).toBe(404);
      expect(text).not.toContain(secret);
      expect(text).not.toMatch(/[A-Za-z0-9]{40}/);
      if (path.includes(value)) expect(text).toContain(`arc_${id}[REDACTED]`);
    }
  });
});
