// A clean shutdown on SIGTERM (README.md) finishes the requests in flight:
// five SIP uploads (a few hundred KB each) are half written, the daemon storing each, when it
// gets SIGTERM; their clients write the rest only once the daemon has said it is shutting down.
// Each must get an answer (202, or a clean JSON error; never a reset), new connections must be
// refused from then on, the "last used" of a token first used just before the signal must be
// stored, and the process must exit 0. Each step waits for what the daemon does (a log line, a
// temporary file, its exit), never for a time.
import { readdirSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createSandbox, createToken, IS_PG, type Sandbox, type TokenJson } from '../helpers/cli.js';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/daemon.js';
import { patchConfig } from '../helpers/config.js';
import { canConnect, holdConnection } from '../helpers/raw-http.js';
import { querySqlite } from '../helpers/sqlite.js';
import { until } from '../helpers/until.js';
import { newBoundary, sipBody, zipOfSize } from '../helpers/upload.js';

const UPLOADS = 5;
const UPLOAD_BYTES = 300 * 1024;

let box: Sandbox;
let daemon: SpawnedDaemon | undefined;
let uploader = '';
let fresh = '';
let freshId = '';

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, { gsroot: 'superuser', gsed: 'editor', gsuser: 'user' });
  uploader = (await createToken(box, 'gsed', 'uploads', 'gsroot')).token;
  const created = await createToken(box, 'gsuser', 'used just before SIGTERM', 'gsroot');
  fresh = created.token;
  freshId = created.id;
});

afterAll(async () => {
  if (daemon?.running()) await daemon.stop('SIGKILL');
  await box?.cleanup();
});

interface UploadOutcome {
  index: number;
  status: number | null;
  body: string;
  error: string | null;
}

/** How many temporary files the daemon is writing uploads to. */
function uploadsBeingStored(dir: string): number {
  try {
    return readdirSync(path.join(dir, 'data', 'tmp')).length;
  } catch {
    return 0; // no upload yet
  }
}

/**
 * A multipart upload on its own connection (no keep-alive agent): the first half is written at
 * once, the rest when `rest` resolves.
 */
function halfUpload(url: string, index: number, rest: Promise<void>): Promise<UploadOutcome> {
  const boundary = newBoundary();
  const body = sipBody(boundary, zipOfSize(UPLOAD_BYTES), {
    identifier: `gs-sip-${index}`,
    title: `Upload ${index} in flight at SIGTERM`,
  });
  return new Promise<UploadOutcome>((resolve) => {
    const u = new URL('/api/sips/import', url);
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: 'POST',
      agent: false,
      headers: {
        Authorization: `Bearer ${uploader}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(body.length),
      },
    });
    let settled = false;
    const finish = (o: Omit<UploadOutcome, 'index'>) => {
      if (settled) return;
      settled = true;
      resolve({ index, ...o });
    };
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        finish({ status: res.statusCode ?? null, body: Buffer.concat(chunks).toString('utf8'), error: null }),
      );
      res.on('error', (err) =>
        finish({ status: res.statusCode ?? null, body: '', error: (err as NodeJS.ErrnoException).code ?? err.message }),
      );
    });
    req.on('error', (err) =>
      finish({ status: null, body: '', error: (err as NodeJS.ErrnoException).code ?? err.message }),
    );
    const half = Math.floor(body.length / 2);
    req.write(body.subarray(0, half));
    void rest.then(() => {
      if (!settled) req.end(body.subarray(half));
    });
  });
}

describe('SIGTERM with requests in flight', () => {
  it('answers every in-flight upload, refuses new connections, flushes last used, exits 0', async () => {
    daemon = await spawnDaemon(box);
    const d = daemon;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      d.proc.once('exit', (code, signal) => resolve({ code, signal })),
    );

    // The uploads are half written, and the daemon is storing each of them…
    let writeTheRest: () => void = () => undefined;
    const rest = new Promise<void>((resolve) => (writeTheRest = resolve));
    const uploads = Array.from({ length: UPLOADS }, (_, i) => halfUpload(d.url, i, rest));
    await until(() => uploadsBeingStored(box.dir) === UPLOADS, 'the daemon to store every upload');

    // …a token is used for the first time…
    const firstUse = Date.now();
    const used = await d.fetch('/api/objects', {
      headers: { Authorization: `Bearer ${fresh}` },
      signal: AbortSignal.timeout(5000),
    });
    expect(used.status).toBe(200);
    await used.arrayBuffer();
    // …and SIGTERM follows at once.
    d.proc.kill('SIGTERM');

    // From the moment the daemon acts on the signal, with the uploads in flight, new
    // connections are refused.
    const shutdown = () => d.logs.find((l) => l.includes('shutting down'));
    await until(() => shutdown() !== undefined, 'the daemon to log its shutdown');
    expect(JSON.parse(shutdown() as string)).toMatchObject({ in_flight: UPLOADS });
    expect(await canConnect(d.url)).toBe(false);
    const refused = await d
      .fetch('/api/objects', { headers: { Authorization: `Bearer ${uploader}` }, signal: AbortSignal.timeout(3000) })
      .then(
        (r) => `answered ${r.status}`,
        (err: Error) => String((err.cause as NodeJS.ErrnoException | undefined)?.code ?? err.message),
      );
    expect(refused).toBe('ECONNREFUSED');
    writeTheRest();

    // Every upload in flight gets its answer.
    const outcomes = await Promise.all(uploads);
    const answered = outcomes.filter((o) => o.status !== null && o.error === null);
    console.log(
      `[graceful-shutdown] ${answered.length}/${UPLOADS} in-flight uploads answered after SIGTERM (statuses ${outcomes.map((o) => o.status ?? o.error).join(', ')})`,
    );
    for (const o of outcomes) {
      expect(o.error, `upload ${o.index}: ${o.error}`).toBeNull();
      expect(o.status, `upload ${o.index}: ${o.body}`).not.toBeNull();
      if (o.status === 202) {
        const data = (JSON.parse(o.body) as { data: { id: number; status: string; object_id: number } }).data;
        expect(data.status).toBe('received');
      } else {
        expect(o.status as number, `upload ${o.index}: ${o.body}`).toBeLessThan(500);
        expect(typeof (JSON.parse(o.body) as { error?: unknown }).error).toBe('string');
      }
    }
    // They were all complete, valid uploads: all of them should have been accepted.
    expect(outcomes.map((o) => o.status)).toEqual(Array(UPLOADS).fill(202));

    // The process exits 0.
    expect(await exited, `stderr:\n${d.stderr()}\nlogs:\n${d.logs.slice(-5).join('\n')}`).toEqual({
      code: 0,
      signal: null,
    });
    expect(d.logs.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
    expect(d.stderr()).toBe('');

    // "Last used" of the token used just before SIGTERM is stored (flushed on the way out, unless
    // the once-a-second flush came first).
    const tokens = await box.json<TokenJson[]>(['token', 'list', 'gsuser', '--all']);
    const token = tokens.find((t) => t.id === freshId);
    expect(token?.last_used, 'last_used of a token first used just before SIGTERM').not.toBeNull();
    expect(Date.parse(token?.last_used as string)).toBeGreaterThanOrEqual(firstUse - 1000);

    // What was acknowledged is stored, file and rows.
    if (!IS_PG && box.dbFile) {
      const rows = await querySqlite<{ n: number }>(
        box.dbFile,
        "SELECT count(*) AS n FROM sip_submissions s JOIN objects o ON o.id = s.object_id WHERE o.identifier LIKE 'gs-sip-%'",
      );
      expect(rows[0]?.n).toBe(outcomes.filter((o) => o.status === 202).length);
    }
  });

  it('does not wait for an upload that never finishes beyond timeouts.shutdownMs, and leaves no temporary file', async () => {
    const other = await createSandbox();
    try {
      await patchConfig(other, { timeouts: { shutdownMs: 1500 } });
      await createAccounts(other, { gs2root: 'superuser', gs2ed: 'editor' });
      const tok = (await createToken(other, 'gs2ed', 'stalled upload', 'gs2root')).token;
      const d = await spawnDaemon(other);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        d.proc.once('exit', (code, signal) => resolve({ code, signal })),
      );
      const boundary = newBoundary();
      const body = sipBody(boundary, zipOfSize(200 * 1024), { identifier: 'gs2-stalled' });
      const held = await holdConnection(d.url);
      held.socket.write(
        `POST /api/sips/import HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tok}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      held.socket.write(body.subarray(0, 100 * 1024)); // half of it, and then nothing more
      await until(() => uploadsBeingStored(other.dir) === 1, 'the daemon to store the upload');
      d.proc.kill('SIGTERM');
      // The daemon gives up on the upload (after timeouts.shutdownMs), cuts its connection and exits.
      expect(await exited, `stderr:\n${d.stderr()}\nlogs:\n${d.logs.slice(-5).join('\n')}`).toEqual({
        code: 0,
        signal: null,
      });
      await held.closed;
      expect(d.stderr()).toBe('');
      // The partial upload left nothing behind in the data directory's tmp.
      const tmp = path.join(other.dir, 'data', 'tmp');
      const left = await readdir(tmp).catch(() => [] as string[]);
      expect(left).toEqual([]);
      const sips = await readdir(path.join(other.dir, 'data', 'sips')).catch(() => [] as string[]);
      expect(sips).toEqual([]);
    } finally {
      await other.cleanup();
    }
  });
});
