// TEI exports are never stale (issue 9): whatever door changed actors, places or keywords, the
// next plain GET of the export shows it, without GET /api/tei/refresh. The daemon compares the
// stored export's source version with the one the database's triggers keep (one per kind,
// changed in the same transaction as the rows), and rebuilds the export when they differ.
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, dataOf, importSip, loadCatalog } from '../helpers/api.js';
import { withSandboxDb } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { useDaemonWithTokens } from '../helpers/http.js';

const { cli, api, t } = useDaemonWithTokens();

async function tei(kind: string, c = api): Promise<string> {
  const r = await c.get(`/api/tei/${kind}`, t.user);
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  return r.text;
}

async function create(path: string, body: Record<string, unknown>): Promise<number> {
  const r = await api.post(path, body, t.editor);
  expect(r.status, r.text).toBe(201);
  return dataOf<{ id: number }>(r).id;
}

beforeAll(async () => {
  // Every export stored before the changes below.
  expect((await api.get('/api/tei/refresh', t.user)).status).toBe(200);
});

describe('every door', () => {
  it('POST and PUT /api/actors show in the next GET of the actors export', async () => {
    const id = await create('/api/actors', { name: 'Fresh, Fiona', type: 'person', date_start: '1900' });
    expect(await tei('actors')).toContain('Fresh, Fiona');
    const put = await api.put(
      `/api/actors/${id}`,
      { name: 'Fresher, Fiona', type: 'corporate_body', date_start: '0000' },
      t.editor,
    );
    expect(put.status, put.text).toBe(200);
    const doc = await tei('actors');
    expect(doc).toContain('Fresher, Fiona');
    expect(doc).not.toContain('Fresh, Fiona');
    expect(doc).toMatch(new RegExp(`<org xml:id="actor-${id}" type="corporate_body">[\\s\\S]*?from-iso="0000"`));
  });

  it('POST /api/places and POST /api/places/{id} show in the next GET of the places export', async () => {
    const id = await create('/api/places', { name: 'Lausanne' });
    expect(await tei('places')).toContain('Lausanne');
    const r = await api.post(`/api/places/${id}`, { location: '46.5197 6.6323', country_code: 'CH' }, t.editor);
    expect(r.status, r.text).toBe(200);
    const doc = await tei('places');
    expect(doc).toContain('<geo>46.5197 6.6323</geo>');
    expect(doc).toContain('<country key="CH">CH</country>');
  });

  it('archivectl catalog load shows in the next GET of each export', async () => {
    await loadCatalog(cli(), 'fresh.json', {
      actors: [{ name: 'Loaded, Lena', type: 'family', date_start: '1800' }],
      places: [{ name: 'Loaded Lugano', geonames: '2659836' }],
      keywords: [{ name: 'Loaded keyword', label: { fr: 'Mot-clé chargé' } }],
    });
    expect(await tei('actors')).toContain('Loaded, Lena');
    expect(await tei('places')).toContain('Loaded Lugano');
    const keywords = await tei('keywords');
    expect(keywords).toContain('Loaded keyword');
    expect(keywords).toContain('<catDesc xml:lang="fr">Mot-clé chargé</catDesc>');
  });

  it("a SIP import's new keywords show in the next GET of the keywords export", async () => {
    await importSip(api, t.editor, { keywords: 'Imported keyword one, Imported keyword two' });
    const doc = await tei('keywords');
    expect(doc).toContain('Imported keyword one');
    expect(doc).toContain('Imported keyword two');
  });

  it('a change written straight into the database, without touching updated_at, shows too', async () => {
    const id = await create('/api/actors', { name: 'Direct, Dora' });
    expect(await tei('actors')).toContain('Direct, Dora');
    await withSandboxDb(cli(), (db) => db('actors').where('id', id).update({ name: 'Directly changed, Dora' }));
    expect(await tei('actors')).toContain('Directly changed, Dora');
    await withSandboxDb(cli(), (db) =>
      db('places').insert({
        name: 'Inserted by hand',
        name_lower: 'inserted by hand',
        created_at: '2000-01-01T00:00:00.000Z',
        updated_at: '2000-01-01T00:00:00.000Z',
      }),
    );
    expect(await tei('places')).toContain('Inserted by hand');
  });

  it('an export stored by an older program (another format, no ETag) is rebuilt on its next read', async () => {
    await withSandboxDb(cli(), (db) =>
      db('tei_exports')
        .where('kind', 'places')
        .update({ document: '<TEI>old and invalid</TEI>', format: null, etag: null, modified_at: null }),
    );
    const doc = await tei('places');
    expect(doc).not.toContain('old and invalid');
    expect(doc).toContain('Lausanne');
  });
});

describe('several readers', () => {
  it('concurrent GETs right after a change all answer the new export, with one ETag', async () => {
    await create('/api/actors', { name: 'Crowd, Cora' });
    const answers = await Promise.all(Array.from({ length: 12 }, () => api.get('/api/tei/actors', t.user)));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.text).toContain('Crowd, Cora');
    }
    expect(new Set(answers.map((a) => a.headers.get('etag'))).size).toBe(1);
  });

  it('a second daemon on the same database serves the change made through the first, and the other way round', async () => {
    const other = await startDaemon(cli());
    try {
      const otherApi = client(() => other);
      expect(await tei('actors', otherApi)).not.toContain('Across, Anna');
      await create('/api/actors', { name: 'Across, Anna' });
      expect(await tei('actors', otherApi)).toContain('Across, Anna');
      const r = await otherApi.post('/api/places', { name: 'Across the river' }, t.editor);
      expect(r.status, r.text).toBe(201);
      expect(await tei('places')).toContain('Across the river');
      // Both serve the same bytes with the same validators.
      const [a, b] = [await api.get('/api/tei/places', t.user), await otherApi.get('/api/tei/places', t.user)];
      expect(b.text).toBe(a.text);
      expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    } finally {
      await other.stop();
    }
  });
});

describe('built files removed from dataDir (by hand, or by another daemon sharing it)', () => {
  it('are built again: the TEI export and the BEACON dump are answered whole, as before', async () => {
    const exports = path.join(cli().dir, 'data', 'exports');
    const tei1 = await api.get('/api/tei/actors', t.user);
    const beacon1 = await api.get('/api/actors?format=beacon', t.user);
    expect([tei1.status, beacon1.status]).toEqual([200, 200]);
    const built = await readdir(exports);
    expect(built.length).toBeGreaterThanOrEqual(2);
    for (const name of built) await rm(path.join(exports, name), { force: true });
    const tei2 = await api.get('/api/tei/actors', t.user);
    const beacon2 = await api.get('/api/actors?format=beacon', t.user);
    expect(tei2.status, tei2.text.slice(0, 300)).toBe(200);
    expect(tei2.text).toBe(tei1.text);
    expect(beacon2.status, beacon2.text.slice(0, 300)).toBe(200);
    expect(beacon2.text).toBe(beacon1.text);
    expect((await readdir(exports)).length).toBeGreaterThanOrEqual(2);
  });
});
