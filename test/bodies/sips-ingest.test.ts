// docs/http-api.md#http-api SIP submissions and ingest callbacks through a real daemon: the multipart upload
// (ZIP by signature, stored under the data directory, size limit from config), the object it
// creates, and the confirm/failed callbacks with their 404 and 409.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ArchiveObject } from '../../src/domain/catalog/objects.js';
import { client, dataOf, emptyZip, fieldsOf, importSip, sipForm, storedZip } from '../helpers/api.js';
import { useDaemonWithConfig, useDaemonWithTokens } from '../helpers/http.js';

const { cli, api, t } = useDaemonWithTokens();

async function objectById(id: number): Promise<ArchiveObject | undefined> {
  const list = (await api.get('/api/objects?perPage=100&sortField=id&sortAsc=0', t.user)).body as {
    data: ArchiveObject[];
  };
  return list.data.find((o) => o.id === id);
}

const objectTotal = async () =>
  ((await api.get('/api/objects', t.user)).body as { meta: { total: number } }).meta.total;

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** sha256 of every file under <dataDir>/sips. */
async function storedSips(dir: string): Promise<Map<string, string>> {
  const sips = path.join(dir, 'data', 'sips');
  const out = new Map<string, string>();
  let names: string[];
  try {
    names = await readdir(sips);
  } catch {
    return out;
  }
  for (const name of names) out.set(sha256(await readFile(path.join(sips, name))), name);
  return out;
}

/** Files left in the temporary upload directory (none once requests are answered). */
async function leftovers(dir: string): Promise<string[]> {
  try {
    return await readdir(path.join(dir, 'data', 'tmp'));
  } catch {
    return [];
  }
}

describe('POST /api/sips/import', () => {
  it('answers 202 {"data": {"id", "status": "received", "object_id"}} and creates an object in status ingesting', async () => {
    const zip = storedZip({ 'bag-info.txt': 'Source-Organization: SLA\n', 'data/letter.txt': 'Dear Friedrich' });
    const r = await api.upload(
      '/api/sips/import',
      sipForm({ file: zip, identifier: 'SIP-2024/001', title: 'Letters 1794', keywords: 'Letters, Poetry' }),
      t.editor,
    );
    expect(r.status).toBe(202);
    const receipt = dataOf<{ id: number; status: string; object_id: number }>(r);
    expect(Object.keys(receipt).sort()).toEqual(['id', 'object_id', 'status']);
    expect(receipt.status).toBe('received');
    expect(Number.isInteger(receipt.id) && receipt.id > 0).toBe(true);
    expect(await objectById(receipt.object_id)).toMatchObject({
      identifier: 'SIP-2024/001',
      title: 'Letters 1794',
      status: 'ingesting',
      keywords: ['Letters', 'Poetry'],
    });
    // Location: where the accepted work is followed, the objects list narrowed to its identifier.
    const location = new URL(r.headers.get('location') ?? '');
    expect(location.search).toBe('?identifier=SIP-2024%2F001');
    const followed = await api.get(`${location.pathname}${location.search}`, t.user);
    expect((followed.body as { data: ArchiveObject[] }).data.map((o) => o.id)).toEqual([receipt.object_id]);
    // The file is kept under <dataDir>/sips, byte for byte.
    const stored = await storedSips(cli().dir);
    expect(stored.has(sha256(zip)), `stored: ${[...stored.values()].join(', ')}`).toBe(true);
    expect(await leftovers(cli().dir)).toEqual([]);
  });

  it('accepts the empty ZIP (22 bytes) and gives an identifier when none is sent', async () => {
    const zip = emptyZip();
    expect(zip.length).toBe(22);
    const r = await api.upload('/api/sips/import', sipForm({ file: zip }), t.editor);
    expect(r.status, r.text).toBe(202);
    const receipt = dataOf<{ id: number; object_id: number }>(r);
    const object = await objectById(receipt.object_id);
    // The generated identifier is in the Location as well.
    expect(r.headers.get('location')).toMatch(
      new RegExp(`/api/objects\\?identifier=${encodeURIComponent(object?.identifier ?? '-')}$`),
    );
    expect(object?.identifier).toMatch(/\S/);
    expect(object).toMatchObject({ status: 'ingesting', title: null, keywords: [] });
  });

  it('refuses a file that is not a ZIP, a missing file and other bad fields with 422, creating nothing', async () => {
    const before = await objectTotal();
    const filesBefore = (await storedSips(cli().dir)).size;
    const cases: [string, FormData, string][] = [
      ['text file', sipForm({ file: new TextEncoder().encode('hello, not a zip'), filename: 'x.zip' }), 'file'],
      ['gzip file', sipForm({ file: new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]) }), 'file'],
      ['empty file', sipForm({ file: new Uint8Array(0) }), 'file'],
      ['three bytes of a signature', sipForm({ file: new Uint8Array([0x50, 0x4b, 0x03]) }), 'file'],
      ['no file', sipForm({ file: null, identifier: 'SIP-no-file' }), 'file'],
      [
        'file as a text field',
        (() => {
          const f = sipForm({ file: null });
          f.set('file', 'PK');
          return f;
        })(),
        'file',
      ],
      ['bad identifier', sipForm({ identifier: 'has spaces in it' }), 'identifier'],
      ['identifier with a quote', sipForm({ identifier: 'a"b' }), 'identifier'],
      ['unknown field', sipForm({ extra: { owner: 'me' } }), 'owner'],
      ['bad keywords', sipForm({ keywords: '[1, 2]' }), 'keywords'],
    ];
    for (const [what, form, field] of cases) {
      const r = await api.upload('/api/sips/import', form, t.editor);
      expect(fieldsOf(r), what).toHaveProperty(field);
    }
    const two = sipForm();
    two.append('file', new Blob([emptyZip()]), 'second.zip');
    expect(fieldsOf(await api.upload('/api/sips/import', two, t.editor))).toHaveProperty('file');
    // not multipart at all
    const json = await api.post('/api/sips/import', { identifier: 'x' }, t.editor);
    expect(json.status).toBe(422);
    const empty = await api.request('/api/sips/import', {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.editor}` },
    });
    expect(empty.status).toBe(422);
    expect(await objectTotal()).toBe(before);
    expect((await storedSips(cli().dir)).size).toBe(filesBefore);
    expect(await leftovers(cli().dir)).toEqual([]);
  });

  it('names at most ten unknown fields, their names cut, as every refusal of a body does', async () => {
    const name = (i: number) => `f${String(i).padStart(2, '0')}${'x'.repeat(97)}`;
    const extra = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [name(i), 'v']));
    const r = await api.upload('/api/sips/import', sipForm({ extra }), t.editor);
    const unknown = Object.entries(fieldsOf(r)).filter(([, why]) => why === 'unknown field');
    expect(unknown).toHaveLength(10);
    for (const [shown] of unknown) expect(shown).toMatch(/^f\d\dx{61}…$/);
    expect((r.body as { error: string }).error).toMatch(/^invalid SIP submission: (f\d\dx{61}…, ){9}f\d\dx{61}…$/);
  });

  it('refuses an identifier already in use with 409', async () => {
    await importSip(api, t.editor, { identifier: 'SIP-dup' });
    const before = await objectTotal();
    const again = await api.upload(
      '/api/sips/import',
      sipForm({ identifier: 'SIP-dup', file: storedZip({ a: 'other content' }) }),
      t.editor,
    );
    expect(again.status).toBe(409);
    expect(await objectTotal()).toBe(before);
    expect(await leftovers(cli().dir)).toEqual([]);
  });
});

describe('concurrent SIP imports', () => {
  it('of one identifier: exactly one 202, the others 409', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.upload(
          '/api/sips/import',
          sipForm({ identifier: 'SIP-race', file: storedZip({ n: String(i) }) }),
          t.editor,
        ),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409, 409, 409, 409]);
    const list = (await api.get('/api/objects?search=sip-race', t.user)).body as { meta: { total: number } };
    expect(list.meta.total).toBe(1);
    expect(await leftovers(cli().dir)).toEqual([]);
  });

  it('naming the same new keyword: all 202, one keyword', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        api.upload('/api/sips/import', sipForm({ keywords: 'Raced keyword, raced KEYWORD' }), t.editor),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202, 202]);
    const kw = (await api.get('/api/keywords?search=raced%20keyword', t.user)).body as { data: { name: string }[] };
    expect(kw.data).toHaveLength(1);
  });
});

describe('the SIP upload size limit (limits.sipUploadBytes)', () => {
  const small = useDaemonWithConfig({ limits: { sipUploadBytes: 1024 } });
  const smallApi = client(() => small.daemon);

  it('answers 413 for an upload over the limit, stores nothing and keeps serving', async () => {
    const big = storedZip({ 'data.bin': 'x'.repeat(4096) });
    const r = await smallApi.upload(
      '/api/sips/import',
      sipForm({ file: big, identifier: 'SIP-too-big' }),
      small.editor,
    );
    expect(r.status).toBe(413);
    const objects = (await smallApi.get('/api/objects', small.editor)).body as { meta: { total: number } };
    expect(objects.meta.total).toBe(0);
    expect((await storedSips(small.box.dir)).size).toBe(0);
    expect(await leftovers(small.box.dir)).toEqual([]);
    // an upload under the limit still works on the same daemon
    const ok = await smallApi.upload(
      '/api/sips/import',
      sipForm({ file: storedZip({ a: 'small' }), identifier: 'SIP-small' }),
      small.editor,
    );
    expect(ok.status, ok.text).toBe(202);
  });

  it('answers 401 before 413 without a token', async () => {
    const big = storedZip({ 'data.bin': 'y'.repeat(4096) });
    const r = await smallApi.upload('/api/sips/import', sipForm({ file: big }));
    expect(r.status).toBe(401);
  });
});

describe('POST /api/ingest/confirm/{id} and /api/ingest/failed/{id}', () => {
  it('confirm: 200, the submission confirmed, its object ingested', async () => {
    const receipt = await importSip(api, t.editor, { identifier: 'SIP-confirm' });
    const r = await api.request(`/api/ingest/confirm/${receipt.id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.editor}` },
    });
    expect(r.status).toBe(200);
    expect(dataOf(r)).toEqual({ id: receipt.id, status: 'confirmed', object_id: receipt.object_id });
    expect((await objectById(receipt.object_id))?.status).toBe('ingested');
  });

  it('confirm takes an empty JSON object too', async () => {
    const receipt = await importSip(api, t.editor);
    const r = await api.post(`/api/ingest/confirm/${receipt.id}`, {}, t.editor);
    expect(r.status).toBe(200);
    expect(dataOf(r)).toMatchObject({ status: 'confirmed' });
  });

  it('failed with a reason: 200, the submission failed, its object failed', async () => {
    const receipt = await importSip(api, t.editor, { identifier: 'SIP-fail' });
    const r = await api.post(
      `/api/ingest/failed/${receipt.id}`,
      { reason: 'checksum mismatch in data/letter.txt' },
      t.editor,
    );
    expect(r.status).toBe(200);
    expect(dataOf(r)).toEqual({ id: receipt.id, status: 'failed', object_id: receipt.object_id });
    expect((await objectById(receipt.object_id))?.status).toBe('failed');
  });

  it('failed without a body or with an empty reason', async () => {
    for (const init of [
      {},
      { body: '{}', headers: { 'Content-Type': 'application/json' } },
      { body: '{"reason": ""}', headers: { 'Content-Type': 'application/json' } },
    ]) {
      const receipt = await importSip(api, t.editor);
      const r = await api.request(`/api/ingest/failed/${receipt.id}`, {
        method: 'POST',
        ...init,
        headers: { ...(init.headers ?? {}), Authorization: `Bearer ${t.editor}` },
      });
      expect(r.status, JSON.stringify(init)).toBe(200);
      expect((await objectById(receipt.object_id))?.status).toBe('failed');
    }
  });

  it('answers 404 for an unknown or non-integer id', async () => {
    for (const id of ['999999', 'abc', '0', '-1', '1.5']) {
      expect((await api.post(`/api/ingest/confirm/${id}`, {}, t.editor)).status, `confirm ${id}`).toBe(404);
      expect((await api.post(`/api/ingest/failed/${id}`, { reason: 'x' }, t.editor)).status, `failed ${id}`).toBe(404);
    }
  });

  it('answers 409 for a submission that is no longer received, and changes nothing', async () => {
    const confirmed = await importSip(api, t.editor);
    expect((await api.post(`/api/ingest/confirm/${confirmed.id}`, {}, t.editor)).status).toBe(200);
    expect((await api.post(`/api/ingest/confirm/${confirmed.id}`, {}, t.editor)).status).toBe(409);
    expect((await api.post(`/api/ingest/failed/${confirmed.id}`, { reason: 'late' }, t.editor)).status).toBe(409);
    expect((await objectById(confirmed.object_id))?.status).toBe('ingested');

    const failed = await importSip(api, t.editor);
    expect((await api.post(`/api/ingest/failed/${failed.id}`, { reason: 'broken' }, t.editor)).status).toBe(200);
    expect((await api.post(`/api/ingest/confirm/${failed.id}`, {}, t.editor)).status).toBe(409);
    expect((await api.post(`/api/ingest/failed/${failed.id}`, { reason: 'again' }, t.editor)).status).toBe(409);
    expect((await objectById(failed.object_id))?.status).toBe('failed');
  });

  it('settles a submission once when confirm and failed race', async () => {
    const receipt = await importSip(api, t.editor);
    const answers = await Promise.all([
      api.post(`/api/ingest/confirm/${receipt.id}`, {}, t.editor),
      api.post(`/api/ingest/failed/${receipt.id}`, { reason: 'race' }, t.editor),
      api.post(`/api/ingest/confirm/${receipt.id}`, {}, t.editor),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
  });

  it('refuses bad callback bodies with 422 and leaves the submission received', async () => {
    const receipt = await importSip(api, t.editor);
    const cases: [string, unknown, string][] = [
      ['failed', { reason: 5 }, 'reason'],
      ['failed', { reason: ['a'] }, 'reason'],
      ['failed', { reason: 'x'.repeat(2001) }, 'reason'],
      ['failed', { reson: 'typo' }, 'reson'],
      ['confirm', { reason: 'not taken here' }, 'reason'],
      ['confirm', { status: 'confirmed' }, 'status'],
    ];
    for (const [kind, body, field] of cases) {
      const r = await api.post(`/api/ingest/${kind}/${receipt.id}`, body, t.editor);
      expect(fieldsOf(r), `${kind} ${JSON.stringify(body).slice(0, 40)}`).toHaveProperty(field);
    }
    expect((await api.post(`/api/ingest/confirm/${receipt.id}`, [], t.editor)).status).toBe(422);
    expect((await api.post(`/api/ingest/confirm/${receipt.id}`, '{"x"', t.editor)).status).toBe(400);
    expect((await objectById(receipt.object_id))?.status).toBe('ingesting');
    // and it can still be confirmed
    expect((await api.post(`/api/ingest/confirm/${receipt.id}`, {}, t.editor)).status).toBe(200);
  });
});
