// Catalogue text (actors, places, keywords, objects) refuses, with a 422 naming the field, what
// no catalogue value has any business holding: C0 and C1 controls (tab and line breaks only in
// multi-line fields), U+2028/U+2029, unpaired surrogates and noncharacters — at every door: the
// API, `archivectl catalog load` and a SIP upload's metadata. Astral characters, private use and
// U+FFFD stay accepted.
import { beforeAll, describe, expect, it } from 'vitest';
import { dataOf, fieldsOf, sipForm } from '../helpers/api.js';
import { asAdministrator } from '../helpers/cli.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, api, t } = useDaemonWithTokens();

/** Refused in every catalogue text field, one-line or multi-line. */
const REFUSED: Record<string, string> = {
  'C0 escape': 'a\u001Bb',
  DEL: 'a\u007Fb',
  'C1 CSI': 'a\u009Bb',
  'C1 NEL': 'a\u0085b',
  'C1 first': 'a\u0080b',
  'line separator': 'a\u2028b',
  'paragraph separator': 'a\u2029b',
  'lone high surrogate': 'a\uD800b',
  'lone low surrogate': 'a\uDFFFb',
  'noncharacter U+FFFF': 'a\uFFFFb',
  'noncharacter U+FFFE': 'a\uFFFEb',
  'noncharacter U+FDD0': 'a\uFDD0b',
  'noncharacter U+FDEF': 'a\uFDEFb',
  'noncharacter U+1FFFE': 'a\u{1FFFE}b',
  'noncharacter U+10FFFF': 'a\u{10FFFF}b',
};

/** Accepted everywhere. */
const ACCEPTED = ['Gothic 𐌰𐌱 😀', 'private \uE000 use', 'replacement \uFFFD char', 'U+FDCF \uFDCF and U+FDF0 \uFDF0'];

beforeAll(async () => {
  expect((await cli().run(['settings', 'set', 'public_access', 'on', ...(await asAdministrator(cli()))])).code).toBe(0);
});

describe('the API', () => {
  it.each(Object.entries(REFUSED))(
    'refuses %s in a name, a label, an alternative name and a comment',
    async (_, bad) => {
      for (const [body, field] of [
        [{ name: bad }, 'name'],
        [{ name: 'ok', label: { de: bad } }, 'label'],
        [{ name: 'ok', alternative_names: ['fine', bad] }, 'alternative_names'],
        [{ name: 'ok', comment: bad }, 'comment'],
      ] as const) {
        const r = await api.post('/api/actors', body, t.editor);
        expect(fieldsOf(r), `${JSON.stringify(bad)} in ${field}`).toHaveProperty(field);
      }
      const place = await api.post('/api/places', { name: 'ok', address: `line one\n${bad}` }, t.editor);
      expect(fieldsOf(place)).toHaveProperty('address');
    },
  );

  it('refuses tab and line breaks in one-line fields, and takes them in multi-line ones', async () => {
    for (const bad of ['a\tb', 'a\nb', 'a\rb']) {
      expect(fieldsOf(await api.post('/api/actors', { name: bad }, t.editor))).toHaveProperty('name');
      expect(fieldsOf(await api.post('/api/places', { name: 'ok', city: bad }, t.editor))).toHaveProperty('city');
    }
    const r = await api.post('/api/actors', { name: 'Multi-line comment', comment: 'one\ntwo\r\n\tthree' }, t.editor);
    expect(r.status, r.text).toBe(201);
    expect(dataOf<{ comment: string }>(r).comment).toBe('one\ntwo\r\n\tthree');
  });

  it('refuses a change the same way, and changes nothing', async () => {
    const id = dataOf<{ id: number }>(await api.post('/api/actors', { name: 'Unchanged' }, t.editor)).id;
    for (const bad of Object.values(REFUSED)) {
      expect(fieldsOf(await api.put(`/api/actors/${id}`, { name: bad }, t.editor))).toHaveProperty('name');
    }
    expect(dataOf<{ name: string }>(await api.get(`/api/actors/${id}`)).name).toBe('Unchanged');
  });

  it('accepts astral characters, private use and U+FFFD', async () => {
    for (const good of ACCEPTED) {
      const r = await api.post('/api/actors', { name: good, comment: good }, t.editor);
      expect(r.status, `${JSON.stringify(good)}: ${r.text}`).toBe(201);
      expect(dataOf<{ name: string }>(r).name).toBe(good);
    }
  });
});

describe('archivectl catalog load', () => {
  it.each(Object.entries(REFUSED))('refuses %s in any section, naming the entry, and loads nothing', async (_, bad) => {
    for (const [content, where] of [
      [{ actors: [{ name: 'fine' }, { name: bad }] }, 'actors[1].name'],
      [{ places: [{ name: 'ok', comment: bad }] }, 'places[0].comment'],
      [{ keywords: ['fine', bad] }, 'keywords[1].name'],
      [{ objects: [{ identifier: 'X-1', title: bad }] }, 'objects[0].title'],
    ] as const) {
      const file = `${cli().dir}/bad-text.json`;
      const { writeFile } = await import('node:fs/promises');
      await writeFile(file, JSON.stringify(content));
      const r = await cli().run(['catalog', 'load', file]);
      expect(r.code, `${JSON.stringify(bad)} at ${where}: ${r.stdout}${r.stderr}`).not.toBe(0);
      expect(r.stderr).toContain(where);
    }
    const objects = await api.get('/api/objects', t.user);
    expect(dataOf<unknown[]>(objects)).toEqual([]);
  });
});

describe('a SIP upload', () => {
  // A multipart form carries UTF-8: an unpaired surrogate cannot be sent in one.
  const sendable = Object.entries(REFUSED).filter(([what]) => !what.includes('surrogate'));

  it.each(sendable)('refuses %s in the title or a keyword, and records nothing', async (_, bad) => {
    for (const [fields, field] of [
      [{ title: bad }, 'title'],
      [{ keywords: `fine, ${bad}` }, 'keywords'],
    ] as const) {
      const r = await api.upload('/api/sips/import', sipForm(fields), t.editor);
      expect(fieldsOf(r), `${JSON.stringify(bad)} in ${field}`).toHaveProperty(field);
    }
    expect(dataOf<unknown[]>(await api.get('/api/objects', t.user))).toEqual([]);
  });
});
