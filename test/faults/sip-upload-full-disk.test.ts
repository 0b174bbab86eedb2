// A SIP upload whose disk fills up near its end (dataDir on a small tmpfs the test mounts; root
// only, otherwise the test says why it is skipped): the answer is 507, never a 202 for a file
// that was cut short, and nothing is left behind — no temporary file, no file under sips/, no
// submission, no object. With room again, an upload is answered 202 only with its file complete
// on disk, and its recorded size and SHA-256 are the file's.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sipForm } from '../helpers/api.js';
import { createAccounts, createSandbox, createToken, withSandboxDb, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { zipOfSize } from '../helpers/upload.js';
import { fill, mountTmpfs, tmpfsRefusal, unmount } from './tmpfs.js';

const refusal = tmpfsRefusal('SIP upload on a full disk');

const UPLOAD = 300 * 1024;

describe.skipIf(refusal !== null)('a SIP upload that fills the disk near its end', () => {
  let box: Sandbox;
  let disk: string;
  let daemon: RunningDaemon;
  let editor: string;
  const filler = () => path.join(disk, 'filler');

  /** Fills the disk to the last byte, then frees `bytes` of it (whole pages, as tmpfs counts). */
  function leaveFree(bytes: number): void {
    rmSync(filler(), { force: true });
    fill(disk);
    truncateSync(filler(), Math.max(0, statSync(filler()).size - bytes));
  }

  const leftovers = () =>
    readdirSync(path.join(disk, 'data'), { recursive: true })
      .map(String)
      .filter((f) => /upload-|\.zip$/.test(f));

  const recorded = () =>
    withSandboxDb(box, async (db) => ({
      // PostgreSQL answers a bigint as text.
      submissions: (
        await db('sip_submissions').select<{ id: number; size: number | string; sha256: string; file: string }[]>(
          'id',
          'size',
          'sha256',
          'file',
        )
      ).map((r) => ({ ...r, id: Number(r.id), size: Number(r.size) })),
      objects: Number((await db('objects').count({ n: '*' }))[0]?.n),
    }));

  const upload = async (zip: Buffer, identifier: string) => {
    const r = await daemon.fetch('/api/sips/import', {
      method: 'POST',
      body: sipForm({ file: new Uint8Array(zip), identifier }),
      headers: { Authorization: `Bearer ${editor}` },
    });
    return { status: r.status, body: await r.text() };
  };

  beforeAll(async () => {
    box = await createSandbox();
    disk = path.join(box.dir, 'disk');
    mkdirSync(disk);
    mountTmpfs(disk, '2m');
    await patchConfig(box, { dataDir: './disk/data' });
    await createAccounts(box, { root: 'superuser', ed: 'editor' });
    editor = (await createToken(box, 'ed', 'uploads', 'root')).token;
    daemon = await startDaemon(box);
  });
  afterAll(async () => {
    await daemon?.stop();
    if (disk) unmount(disk);
    await box?.cleanup();
  });

  it('answers 507 and leaves nothing behind, whatever byte the disk fills at', async () => {
    const before = await recorded();
    // The room left falls short of the upload by a little (the last write fails, after the
    // parser has seen the end of the body) up to a lot (a write in the middle fails).
    for (const short of [1, 2048, 8192, 20_000, 100_000]) {
      leaveFree(UPLOAD - short);
      const r = await upload(zipOfSize(UPLOAD), `full-${short}`);
      expect(r.status, `${short} bytes short: ${r.body}`).toBe(507);
      expect(JSON.parse(r.body)).toEqual({ error: expect.stringMatching(/no space/) as unknown });
      expect(leftovers(), `${short} bytes short`).toEqual([]);
      expect(await recorded(), `${short} bytes short`).toEqual(before);
    }
  });

  it('with room again: 202 only with the whole file on disk, its size and SHA-256 recorded', async () => {
    rmSync(filler(), { force: true });
    const zip = zipOfSize(UPLOAD);
    const r = await upload(zip, 'room-again');
    expect(r.status, r.body).toBe(202);
    const { id } = (JSON.parse(r.body) as { data: { id: number } }).data;
    const row = (await recorded()).submissions.find((s) => s.id === id);
    expect(row).toMatchObject({
      size: zip.length,
      sha256: createHash('sha256').update(zip).digest('hex'),
      file: `sips/${id}.zip`,
    });
    expect(readFileSync(path.join(disk, 'data', `sips/${id}.zip`)).equals(zip)).toBe(true);
    expect(leftovers()).toEqual([`sips/${id}.zip`]);
  });
});
