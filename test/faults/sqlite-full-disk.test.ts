// Issue 12: a full disk under a SQLite installation. The database file and dataDir live on a
// small tmpfs the test mounts (root only; otherwise the test says why it is skipped, and under
// CI fails). Once the
// disk is full: a SIP upload answers 507 promptly and leaves no file behind; a write SQLite
// cannot commit answers 503 (with Retry-After) and the database stays intact; reads keep
// working; once space returns, writes and uploads succeed again without a restart.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sipForm } from '../helpers/api.js';
import { createSandbox, IS_PG, type Sandbox } from '../helpers/cli.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { zipOfSize } from '../helpers/upload.js';
import { staffTokens, type Staff } from './faults-setup.js';
import { fill, mountTmpfs, tmpfsRefusal, unmount } from './tmpfs.js';

const refusal = IS_PG ? 'SQLite only (a PostgreSQL run)' : tmpfsRefusal('full-disk test');

describe.skipIf(refusal !== null)('a full disk under SQLite', () => {
  let box: Sandbox;
  let disk: string;
  let staff: Staff;
  let daemon: RunningDaemon;
  const dbFile = () => path.join(disk, 'archive.sqlite3');

  beforeAll(async () => {
    box = await createSandbox({ migrate: false });
    disk = path.join(box.dir, 'disk');
    mkdirSync(disk);
    mountTmpfs(disk, '8m');
    await writeFile(
      box.configFile,
      JSON.stringify({ database: { filename: './disk/archive.sqlite3' }, dataDir: './disk/data' }),
    );
    expect((await box.run(['migrate'])).code).toBe(0);
    staff = await staffTokens(box, 0);
    daemon = await startDaemon(box);
  });
  afterAll(async () => {
    await daemon?.stop();
    if (disk) unmount(disk);
    await box?.cleanup();
  });

  it('507 for an upload, 503 for a write, reads served, intact, recovered when space returns', async () => {
    const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
    const upload = async () => {
      const form = sipForm({ file: new Uint8Array(zipOfSize(512 * 1024)), identifier: `sip-${Date.now()}` });
      const started = performance.now();
      const r = await daemon.fetch('/api/sips/import', { method: 'POST', body: form, headers: auth(staff.editor) });
      return { status: r.status, ms: Math.round(performance.now() - started), body: await r.text() };
    };
    const write = async (name: string) => {
      const r = await daemon.fetch('/api/actors', {
        method: 'POST',
        body: JSON.stringify({ name }),
        headers: { ...auth(staff.editor), 'Content-Type': 'application/json' },
      });
      await r.arrayBuffer();
      return { status: r.status, retryAfter: r.headers.get('retry-after') };
    };
    const read = async () => (await daemon.fetch('/api/actors', { headers: auth(staff.reader) })).status;

    const filler = fill(disk);
    const full = await upload();
    expect(full.status, full.body).toBe(507);
    const leftovers = readdirSync(path.join(disk, 'data'), { recursive: true }).map(String);
    expect(leftovers.filter((f) => /upload-|\.zip$/.test(f))).toEqual([]);

    // A few writes: the first ones may still fit in pages SQLite holds already.
    const writes: { status: number; retryAfter: string | null }[] = [];
    for (let i = 0; i < 200 && !writes.some((w) => w.status === 503); i++) writes.push(await write(`full ${i}`));
    expect(writes.filter((w) => ![201, 503].includes(w.status))).toEqual([]);
    expect(writes.some((w) => w.status === 503 && w.retryAfter !== null)).toBe(true);
    expect(await read()).toBe(200);

    rmSync(filler);
    const again = await write('after space returned');
    expect(again.status).toBe(201);
    const uploaded = await upload();
    expect(uploaded.status, uploaded.body).toBe(202);
    await daemon.stop();

    const { default: knex } = await import('knex');
    const db = knex({ client: 'sqlite3', connection: { filename: dbFile() }, useNullAsDefault: true });
    try {
      const check = await db.raw<{ integrity_check: string }[]>('PRAGMA integrity_check');
      expect(check).toEqual([{ integrity_check: 'ok' }]);
      const acknowledged = writes.filter((w) => w.status === 201).length + 1;
      const stored = await db('actors').where('name', 'like', 'full %').orWhere('name', 'after space returned');
      expect(stored.length).toBe(acknowledged);
      const figures = { upload: full, writes: writes.length, writesAcknowledged: acknowledged, stored: stored.length };
      console.log(`faults: full disk ${JSON.stringify(figures)}`);
    } finally {
      await db.destroy();
    }
  }, 60_000);
});
