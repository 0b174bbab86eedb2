// A token value sent where it does not belong never comes back in an answer: the 404 that names
// an unknown path, or the 422 that names an unknown field (by its key: a value sent as a key),
// shows the token's public id and no more, as the logs do.
import { describe, expect, it } from 'vitest';
import { checksum, randomBase62 } from '../../src/domain/tokens/format.js';
import { fieldsOf } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { daemon, api, t } = useDaemonWithTokens();

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

describe('a refusal naming what the client sent', () => {
  const USAGE = { provider: 'x', model: 'y', tokens_in: 1, tokens_out: 2, cost_chf: 0.01, success: true };

  it('names an unknown field whose key is a token value by its public id only, keys and texts alike', async () => {
    const id = randomBase62(8);
    const secret = randomBase62(40);
    const value = `arc_${id}${secret}${checksum(id + secret)}`;
    const legacy = randomBase62(60);
    const r = await api.post('/api/ai-cataloging/usage', { ...USAGE, [value]: 1, [legacy]: 2 }, t.editor);
    const fields = fieldsOf(r);
    expect(r.text).not.toContain(secret);
    expect(r.text).not.toContain(legacy);
    expect(r.text).not.toMatch(/[A-Za-z0-9]{40}/);
    expect(fields).toEqual({ [`arc_${id}[REDACTED]`]: 'unknown field', '[REDACTED]': 'unknown field' });
    expect((r.body as { error: string }).error).toContain(`arc_${id}[REDACTED]`);
    // Field names of one case (`kkk…`, a commit id) are not token values: named as sent.
    const hex = 'f'.repeat(40);
    expect(Object.keys(fieldsOf(await api.post('/api/ai-cataloging/usage', { ...USAGE, [hex]: 1 }, t.editor)))).toEqual(
      [hex],
    );
  });
});
