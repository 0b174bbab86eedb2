// Review finding 9 (identifiers): SIP identifiers may contain `/` (archival signatures such as
// `CH-001/2024.3`), and consumers may use them as paths. A `.` or `..` segment, an empty segment
// (`a//b`) or a trailing `/` is refused with a 422 naming the field; nothing is stored.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataOf, fieldsOf, sipForm } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, api, t } = useDaemonWithTokens();

const total = async () => ((await api.get('/api/objects', t.user)).body as { meta: { total: number } }).meta.total;

describe('SIP identifiers with path segments', () => {
  it('refuses ".", "..", empty segments and a trailing "/" with 422 naming identifier', async () => {
    const bad = [
      'a/../b',
      'a/..',
      'a/../../etc/passwd',
      'a/./b',
      'a/.',
      'a//b',
      'a/',
      'CH-001/2024.3/',
      'x/y//',
      'a/b/../c',
    ];
    const before = await total();
    for (const identifier of bad) {
      const r = await api.upload('/api/sips/import', sipForm({ identifier }), t.editor);
      const fields = fieldsOf(r);
      expect(Object.keys(fields), identifier).toEqual(['identifier']);
      expect(fields.identifier).toMatch(/segment/);
    }
    expect(await total()).toBe(before);
    let sips: string[] = [];
    try {
      sips = await readdir(path.join(cli().dir, 'data', 'sips'));
    } catch {
      // never created
    }
    expect(sips).toEqual([]);
  });

  it('accepts segments that merely contain dots', async () => {
    for (const identifier of ['CH-001/2024.3', 'a/b..c', 'a/.b', 'a/b.', 'v1.0..2', 'a:b/c-d/e_f', 'x.y/z']) {
      const r = await api.upload('/api/sips/import', sipForm({ identifier }), t.editor);
      expect(r.status, `${identifier}: ${r.text}`).toBe(202);
      const id = dataOf<{ object_id: number }>(r).object_id;
      const list = (await api.get(`/api/objects?search=${encodeURIComponent(identifier)}`, t.user)).body as {
        data: { id: number; identifier: string }[];
      };
      expect(list.data.find((o) => o.id === id)?.identifier).toBe(identifier);
    }
  });
});
