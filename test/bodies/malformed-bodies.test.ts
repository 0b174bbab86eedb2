// Unreadable request bodies (docs/http-api.md#access-rules, step 4): a truncated or aborted multipart upload, a
// multipart body without a boundary, malformed JSON, an unsupported content type. Each gets a 4xx
// (after authentication: 401 first without a token) and the daemon keeps serving. A crash here
// would take every later test with it, so each test gets a daemon that is known to be running.
import net from 'node:net';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { basicTokens, bearer, replyProblems, send, type BasicTokens } from '../helpers/api.js';
import { createSandbox, type Sandbox } from '../helpers/cli.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/until.js';

let box: Sandbox | undefined;
let d: RunningDaemon | undefined;
let t: BasicTokens;

const running = () => d !== undefined && d.running();

beforeAll(async () => {
  box = await createSandbox();
  t = await basicTokens(box);
});
beforeEach(async () => {
  if (!running()) d = await startDaemon(box as Sandbox);
});
afterAll(async () => {
  await d?.stop();
  await box?.cleanup();
});

const daemon = () => d as RunningDaemon;

/** The daemon is alive and answers a normal request. */
async function stillServing(): Promise<void> {
  expect(running(), `the daemon exited:\n${daemon().stderr().slice(-2000)}`).toBe(true);
  const r = await send(daemon(), '/api/objects', { headers: bearer(t.user) });
  expect(r.status).toBe(200);
}

/** A multipart body whose last part (a file) never reaches its closing boundary. */
const TRUNCATED_FILE =
  '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\nContent-Type: application/zip\r\n\r\nPK\x03\x04 partial';
const TRUNCATED_FIELD = '--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nhalf a title';

async function post(p: string, body: string, type: string, token?: string) {
  const r = await send(daemon(), p, { method: 'POST', body, headers: { 'Content-Type': type, ...bearer(token) } });
  expect(replyProblems(r)).toEqual([]);
  return r;
}

describe('truncated multipart bodies', () => {
  it.each([
    ['POST /api/sips/import with a file part cut short', 400, '/api/sips/import', 'editor'],
    ['a file part cut short on a route that takes no upload, without a token', 401, '/api/actors', 'nobody'],
    ['a file part cut short on a route that takes no upload, with a token', 400, '/api/actors', 'editor'],
  ] as const)('%s: %i, and the daemon keeps serving', async (_title, status, path, who) => {
    const token = who === 'editor' ? t.editor : undefined;
    const r = await post(path, TRUNCATED_FILE, 'multipart/form-data; boundary=xyz', token).catch((e: unknown) => e);
    await stillServing();
    expect((r as { status?: number }).status).toBe(status);
  });

  it('a text field cut short: 400', async () => {
    const r = await post('/api/sips/import', TRUNCATED_FIELD, 'multipart/form-data; boundary=xyz', t.editor);
    expect(r.status).toBe(400);
    await stillServing();
  });

  it('no boundary: 400; without a token 401', async () => {
    expect((await post('/api/sips/import', 'x', 'multipart/form-data', t.editor)).status).toBe(400);
    expect((await post('/api/sips/import', 'x', 'multipart/form-data')).status).toBe(401);
    await stillServing();
  });
});

describe('an upload the client abandons', () => {
  /** Sends the start of a SIP upload (with or without a token) and closes the connection. */
  async function abandonUpload(token: string | undefined): Promise<void> {
    const url = new URL(daemon().url);
    const head = [
      'POST /api/sips/import HTTP/1.1',
      `Host: ${url.host}`,
      ...(token ? [`Authorization: Bearer ${token}`] : []),
      'Content-Type: multipart/form-data; boundary=xyz',
      'Content-Length: 100000',
      '',
      '',
    ].join('\r\n');
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(head);
        socket.write('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nPK\x03\x04');
        socket.write('x'.repeat(5000));
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 200);
      });
      socket.on('error', reject);
    });
  }

  async function tmpFiles(): Promise<string[]> {
    try {
      return await readdir(path.join((box as Sandbox).dir, 'data', 'tmp'));
    } catch {
      return [];
    }
  }

  for (const who of ['an editor', 'a client without a token'] as const) {
    it(`leaves no temporary file behind (${who}) and the daemon keeps serving`, async () => {
      const before = await tmpFiles();
      await abandonUpload(who === 'an editor' ? t.editor : undefined);
      await stillServing();
      const left = async () => (await tmpFiles()).filter((f) => !before.includes(f));
      // On a timeout the assertion below names the files left.
      await eventually(async () => (await left()).length === 0, 'the abandoned upload to be removed').catch(() => {});
      expect(await left(), 'temporary upload files left in <dataDir>/tmp').toEqual([]);
    });
  }
});

describe('other unreadable bodies', () => {
  it('malformed JSON: 400 (401 without a token); unsupported type: 415; bad content encoding: 4xx', async () => {
    expect((await post('/api/actors', '{"name": "x"', 'application/json', t.editor)).status).toBe(400);
    expect((await post('/api/actors', '{"name": "x"', 'application/json')).status).toBe(401);
    expect((await post('/api/actors', 'name x', 'text/plain', t.editor)).status).toBe(415);
    expect((await post('/api/actors', '\x00\x01', 'application/octet-stream', t.editor)).status).toBe(415);
    const gz = await send(daemon(), '/api/actors', {
      method: 'POST',
      body: 'not gzip',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', ...bearer(t.editor) },
    });
    expect(replyProblems(gz)).toEqual([]);
    expect(gz.status).toBeGreaterThanOrEqual(400);
    await stillServing();
  });

  it('a JSON body over limits.jsonBytes: 413', async () => {
    const big = JSON.stringify({ name: 'x', comment: 'y'.repeat(1_100_000) });
    const r = await post('/api/actors', big, 'application/json', t.editor).catch((e: unknown) => e);
    expect((r as { status?: number }).status).toBe(413);
    await stillServing();
  });
});
