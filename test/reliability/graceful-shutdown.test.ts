// SPEC §1 and §7 "clean shutdown on SIGTERM … SIGTERM finishes the requests in flight":
// five slow SIP uploads (a few hundred KB each, written in chunks over about 1.5 s) are in
// flight when the daemon gets SIGTERM. Each must get an answer (202, or a clean JSON error;
// never a reset), new connections must be refused from then on, the "last used" of a token
// first used just before the signal must be flushed, and the process must exit 0 in time.
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createSandbox, createToken, IS_PG, type Sandbox, type TokenJson } from '../helpers/cli.js';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/daemon.js';
import { patchConfig } from '../helpers/config.js';
import { canConnect, holdConnection } from '../helpers/raw-http.js';
import { querySqlite } from '../helpers/sqlite.js';
import { newBoundary, sipBody, zipOfSize } from '../helpers/upload.js';

const UPLOADS = 5;
const UPLOAD_BYTES = 300 * 1024;
const CHUNKS = 12;
const CHUNK_INTERVAL_MS = 125; // 12 chunks → about 1.5 s per upload
const EXIT_WITHIN_MS = 15_000;

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
  /** When the answer (or the error) arrived (Date.now()). */
  at: number;
}

/** A multipart upload written chunk by chunk on its own connection (no keep-alive agent). */
function slowUpload(url: string, index: number): { started: Promise<void>; done: Promise<UploadOutcome> } {
  const boundary = newBoundary();
  const body = sipBody(boundary, zipOfSize(UPLOAD_BYTES), {
    identifier: `gs-sip-${index}`,
    title: `Upload ${index} in flight at SIGTERM`,
  });
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const done = new Promise<UploadOutcome>((resolve) => {
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
    const finish = (o: Omit<UploadOutcome, 'index' | 'at'>) => {
      if (settled) return;
      settled = true;
      resolve({ index, at: Date.now(), ...o });
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
    req.setTimeout(EXIT_WITHIN_MS, () => req.destroy(new Error('no answer in time')));
    const size = Math.ceil(body.length / CHUNKS);
    let at = 0;
    const writeNext = () => {
      if (settled) return;
      req.write(body.subarray(at, at + size));
      at += size;
      if (at === size) markStarted();
      if (at >= body.length) req.end();
      else setTimeout(writeNext, CHUNK_INTERVAL_MS);
    };
    req.flushHeaders();
    writeNext();
  });
  return { started, done };
}

describe('SIGTERM with requests in flight', () => {
  it('answers every in-flight upload, refuses new connections, flushes last used, exits 0', async () => {
    daemon = await spawnDaemon(box);
    const d = daemon;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      d.proc.once('exit', (code, signal) => resolve({ code, signal })),
    );

    // The uploads start, and are well under way…
    const uploads = Array.from({ length: UPLOADS }, (_, i) => slowUpload(d.url, i));
    await Promise.all(uploads.map((u) => u.started));
    await new Promise((r) => setTimeout(r, 2 * CHUNK_INTERVAL_MS));

    // …a token is used for the first time…
    const firstUse = Date.now();
    const used = await d.fetch('/api/objects', {
      headers: { Authorization: `Bearer ${fresh}` },
      signal: AbortSignal.timeout(5000),
    });
    expect(used.status).toBe(200);
    await used.arrayBuffer();
    // …and SIGTERM follows at once (well within the 1 s flush interval of "last used").
    const signalled = Date.now();
    d.proc.kill('SIGTERM');
    expect(signalled - firstUse).toBeLessThan(1000);

    // From the moment the daemon acts on the signal, new connections are refused.
    const deadline = Date.now() + 5000;
    while (!d.logs.some((l) => l.includes('shutting down')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(
      d.logs.some((l) => l.includes('shutting down')),
      'the daemon logged its shutdown',
    ).toBe(true);
    expect(await canConnect(d.url)).toBe(false);
    const refused = await d
      .fetch('/api/objects', { headers: { Authorization: `Bearer ${uploader}` }, signal: AbortSignal.timeout(3000) })
      .then(
        (r) => `answered ${r.status}`,
        (err: Error) => String((err.cause as NodeJS.ErrnoException | undefined)?.code ?? err.message),
      );
    expect(refused).toBe('ECONNREFUSED');

    // Every upload in flight gets its answer.
    const outcomes = await Promise.all(uploads.map((u) => u.done));
    const answered = outcomes.filter((o) => o.status !== null && o.error === null);
    console.log(
      `[graceful-shutdown] ${answered.length}/${UPLOADS} in-flight uploads answered after SIGTERM (statuses ${outcomes.map((o) => o.status ?? o.error).join(', ')})`,
    );
    for (const o of outcomes) {
      expect(o.at, `upload ${o.index} was still in flight at SIGTERM`).toBeGreaterThan(signalled);
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

    // The process exits 0, in bounded time.
    const exit = await Promise.race([
      exited,
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), EXIT_WITHIN_MS)),
    ]);
    expect(exit, `stderr:\n${d.stderr()}\nlogs:\n${d.logs.slice(-5).join('\n')}`).toEqual({ code: 0, signal: null });
    expect(d.logs.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
    expect(d.stderr()).toBe('');

    // "Last used" of the token used just before SIGTERM was flushed on the way out.
    const tokens = await box.json<TokenJson[]>(['token', 'list', 'gsuser', '--all']);
    const token = tokens.find((t) => t.id === freshId);
    expect(token?.last_used, 'last_used of a token first used < 1 s before SIGTERM').not.toBeNull();
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
      await new Promise((r) => setTimeout(r, 300));
      d.proc.kill('SIGTERM');
      const exit = await Promise.race([
        exited,
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), EXIT_WITHIN_MS)),
      ]);
      expect(exit, `stderr:\n${d.stderr()}\nlogs:\n${d.logs.slice(-5).join('\n')}`).toEqual({ code: 0, signal: null });
      await Promise.race([held.closed, new Promise((r) => setTimeout(r, 2000))]);
      expect(held.isClosed(), 'the stalled upload connection was closed by the shutdown').toBe(true);
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
