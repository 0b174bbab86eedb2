// Review finding 9 (uploads): an upload that is going to be refused was still read to its end
// before the answer — 300 MB with a forged or no token cost 300 MB of reading. Now a multipart
// body of a request already known to be refused is read only up to the start of its first file
// part; an `api_token` part stops reading at once; the answer closes the connection. Bodies
// here are generated while they are sent (one 64 KiB buffer, written again and again).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createToken } from '../helpers/cli.js';
import { logEntries, useDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/until.js';

const { cli, daemon } = useDaemon();
let editor = '';
let reader = '';

beforeAll(async () => {
  await createAccounts(cli(), { erroot: 'superuser', ered: 'editor', erreader: 'user' });
  editor = (await createToken(cli(), 'ered', 'early refusal', 'erroot')).token;
  reader = (await createToken(cli(), 'erreader', 'early refusal', 'erroot')).token;
});

const MB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x41);
const BOUNDARY = 'earlyrefusalboundary';

type Part = { name: string; value: string } | { name: string; file: true; bytes: number };

interface Outcome {
  status: number;
  /** The answer's headers and body; null when the connection was reset before the answer could be read. */
  headers: http.IncomingHttpHeaders | null;
  body: string | null;
  total: number;
  /** Bytes of the body written before the answer arrived (or the connection was reset). */
  sentBeforeAnswer: number;
  /** Entries of <dataDir>/tmp when the answer arrived. */
  tmpAtAnswer: string[];
  /** The daemon's log lines about this request (found by a marker in its query). */
  logLines: Record<string, unknown>[];
}

const partHead = (p: Part) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"${'file' in p ? '; filename="big.zip"\r\nContent-Type: application/zip' : ''}\r\n\r\n`;

const dataDir = () => path.join(cli().dir, 'data');
async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/** The log lines whose path carries `marker`, once the access line is there. */
async function linesAbout(marker: string): Promise<Record<string, unknown>[]> {
  const about = () => logEntries(daemon()).filter((e) => typeof e.path === 'string' && e.path.includes(marker));
  await until(() => about().some((e) => e.msg === 'request'), `the access log line for ${marker}`);
  return about();
}

/**
 * Streams a multipart body with Content-Length (as fast as the connection takes it, never
 * holding it whole) and stops sending when the answer arrives. The daemon closes the connection
 * after an early answer; a client still writing then sees a reset, sometimes before it could
 * read the answer (as curl or fetch would too). Writes yield to the event loop so that an answer
 * already received is read first; when the reset still wins, the status is taken from the
 * daemon's access log line for the request.
 */
function streamUpload(route: string, headers: Record<string, string>, parts: Part[]): Promise<Outcome> {
  const segments: (string | number)[] = []; // a string is written as is; a number is that many bytes of file content
  for (const p of parts) {
    segments.push(partHead(p));
    segments.push('file' in p ? p.bytes : p.value);
    segments.push('\r\n');
  }
  segments.push(`--${BOUNDARY}--\r\n`);
  const total = segments.reduce<number>((n, s) => n + (typeof s === 'number' ? s : Buffer.byteLength(s)), 0);
  const marker = `probe-${randomUUID()}`;
  const url = new URL(`${route}?${marker}`, daemon().url);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let over = false;
    const done = (o: Omit<Outcome, 'logLines' | 'tmpAtAnswer'>) => {
      over = true;
      void entries(path.join(dataDir(), 'tmp'))
        .then(async (tmpAtAnswer) => resolve({ ...o, tmpAtAnswer, logLines: await linesAbout(marker) }))
        .catch(reject);
    };
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: {
        ...headers,
        'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
        'Content-Length': String(total),
      },
    });
    req.on('response', (res) => {
      const sentBeforeAnswer = sent;
      over = true;
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body, total, sentBeforeAnswer }));
      res.on('error', () =>
        done({ status: res.statusCode ?? 0, headers: res.headers, body: null, total, sentBeforeAnswer }),
      );
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (over) return;
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') return reject(err);
      // Reset while writing, before the answer could be read: the access log has the status.
      const sentBeforeAnswer = sent;
      over = true;
      void linesAbout(marker)
        .then((lines) => {
          const access = lines.find((e) => e.msg === 'request');
          done({ status: Number(access?.status), headers: null, body: null, total, sentBeforeAnswer });
        })
        .catch(reject);
    });
    const write = (buf: Buffer | string): Promise<void> => {
      sent += Buffer.byteLength(buf);
      const flushed = req.write(buf);
      return new Promise((next) => {
        if (flushed) return void setImmediate(next);
        // Whichever comes first ends the wait and removes the other listener: left behind, one
        // 'close' listener per drain adds up (Node.js 24 drains often enough to warn of a leak).
        const go = () => {
          req.off('drain', go).off('close', go);
          next();
        };
        req.once('drain', go).once('close', go);
      });
    };
    void (async () => {
      for (const s of segments) {
        if (typeof s === 'string') {
          if (over || req.destroyed) return;
          await write(s);
          continue;
        }
        for (let left = s; left > 0; left -= CHUNK.length) {
          if (over || req.destroyed) return;
          await write(left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left));
        }
      }
      if (!over && !req.destroyed) req.end();
    })();
  });
}

/** Records every file name that appears in <dataDir>/tmp while `run` runs. */
async function watchTmp<T>(run: () => Promise<T>): Promise<{ result: T; created: string[] }> {
  const dir = path.join(dataDir(), 'tmp');
  await mkdir(dir, { recursive: true });
  const created = new Set<string>();
  const watcher: FSWatcher = watch(dir, (_event, name) => {
    if (name) created.add(String(name));
  });
  try {
    const result = await run();
    return { result, created: [...created] };
  } finally {
    watcher.close();
  }
}

function expectAnsweredEarly(o: Outcome, status: number, error: RegExp): void {
  expect(o.status, o.body ?? '(connection reset before the answer was read)').toBe(status);
  if (o.body !== null && o.headers !== null) {
    expect((JSON.parse(o.body) as { error: string }).error).toMatch(error);
    expect(o.headers.connection).toBe('close');
  }
  expect(o.sentBeforeAnswer, `answered after ${o.sentBeforeAnswer} of ${o.total} bytes`).toBeLessThan(o.total);
  expect(o.tmpAtAnswer).toEqual([]);
  // The api_token rule logs its warning line; no other refusal does.
  const warned = o.logLines.some((e) => e.msg === 'refused a request carrying the api_token parameter');
  expect(warned, 'api_token warning line').toBe(error === API_TOKEN_ERROR);
}

async function nothingStored(): Promise<void> {
  expect(await entries(path.join(dataDir(), 'tmp'))).toEqual([]);
  expect(await entries(path.join(dataDir(), 'sips'))).toEqual([]);
  const res = await daemon().fetch('/api/objects', { headers: { Authorization: `Bearer ${reader}` } });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { meta: { total: number } }).meta.total).toBe(0);
}

const BIG = 300 * MB;
const FORGED = `arc_${'C'.repeat(54)}`;
const API_TOKEN_ERROR = /api_token parameter is no longer accepted/;

describe('a 300 MB upload that is going to be refused', () => {
  it('without a token: 401 before the client finished sending, the connection closed, nothing stored', async () => {
    const { result, created } = await watchTmp(() =>
      streamUpload('/api/sips/import', {}, [
        { name: 'identifier', value: 'SIP-anon' },
        { name: 'file', file: true, bytes: BIG },
      ]),
    );
    expectAnsweredEarly(result, 401, /authentication required/);
    expect(created).toEqual([]);
    await nothingStored();
    console.log(`no token: answered after ${result.sentBeforeAnswer} of ${result.total} bytes sent`);
  });

  it('with a forged token: 401 before the client finished sending', async () => {
    const o = await streamUpload('/api/sips/import', { Authorization: `Bearer ${FORGED}` }, [
      { name: 'file', file: true, bytes: BIG },
    ]);
    expectAnsweredEarly(o, 401, /not valid/);
    if (o.headers) expect(o.headers['www-authenticate']).toMatch(/invalid_token/);
    await nothingStored();
  });

  it('with a token below editor: 403 before the client finished sending', async () => {
    const o = await streamUpload('/api/sips/import', { Authorization: `Bearer ${reader}` }, [
      { name: 'file', file: true, bytes: BIG },
    ]);
    expectAnsweredEarly(o, 403, /editor/);
    await nothingStored();
  });

  it('with a forged token on another route: 401 before the client finished sending', async () => {
    const o = await streamUpload('/api/actors', { Authorization: `Bearer ${FORGED}` }, [
      { name: 'file', file: true, bytes: BIG },
    ]);
    expectAnsweredEarly(o, 401, /not valid/);
  });

  it('with a token past its rate limit: 429 before the client finished sending, nothing written', async () => {
    const limited = (
      await cli().json<{ token: string }>([
        'token',
        'create',
        'ered',
        '--name',
        'limited uploads',
        '--scope',
        'sips',
        '--rate-limit',
        '1/hour',
        '--as',
        'erroot',
      ])
    ).token;
    // The hour's one request, spent on a request the token's scope refuses (counted all the same).
    const spent = await daemon().fetch('/api/objects', { headers: { Authorization: `Bearer ${limited}` } });
    expect(spent.status).toBe(403);
    const { result, created } = await watchTmp(() =>
      streamUpload('/api/sips/import', { Authorization: `Bearer ${limited}` }, [
        { name: 'identifier', value: 'SIP-limited' },
        { name: 'file', file: true, bytes: BIG },
      ]),
    );
    expectAnsweredEarly(result, 429, /this token may make 1 requests per hour/);
    if (result.headers) expect(Number(result.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(created).toEqual([]);
    await nothingStored();
  });

  it('without a token on another write route, or on an unknown path: answered before the client finished sending', async () => {
    expectAnsweredEarly(
      await streamUpload('/api/actors', {}, [{ name: 'file', file: true, bytes: BIG }]),
      401,
      /authentication required/,
    );
    expectAnsweredEarly(
      await streamUpload('/api/places/1', { Authorization: `Bearer ${reader}` }, [
        { name: 'file', file: true, bytes: BIG },
      ]),
      403,
      /editor/,
    );
    expectAnsweredEarly(
      await streamUpload('/api/no-such-thing', { Authorization: `Bearer ${editor}` }, [
        { name: 'file', file: true, bytes: BIG },
      ]),
      404,
      /no such endpoint/,
    );
  });

  it('an api_token field before the file still wins: the api_token 401', async () => {
    const o = await streamUpload('/api/sips/import', {}, [
      { name: 'api_token', value: 'whatever' },
      { name: 'file', file: true, bytes: BIG },
    ]);
    expectAnsweredEarly(o, 401, API_TOKEN_ERROR);
    await nothingStored();
  });
});

describe("an editor's upload carrying api_token", () => {
  it('before the file part: the api_token 401 at once, nothing ever written to dataDir/tmp', async () => {
    const { result, created } = await watchTmp(() =>
      streamUpload('/api/sips/import', { Authorization: `Bearer ${editor}` }, [
        { name: 'api_token', value: 'x' },
        { name: 'file', file: true, bytes: BIG },
      ]),
    );
    expectAnsweredEarly(result, 401, API_TOKEN_ERROR);
    expect(created, 'files created in dataDir/tmp').toEqual([]);
    await nothingStored();
  });

  it('after a file part: that file removed at once, the api_token 401 before the rest is sent', async () => {
    const { result, created } = await watchTmp(() =>
      streamUpload('/api/sips/import', { Authorization: `Bearer ${editor}` }, [
        { name: 'file', file: true, bytes: 2 * MB },
        { name: 'api_token', value: 'x' },
        { name: 'title', value: 'y'.repeat(1000) },
        { name: 'other', file: true, bytes: BIG },
      ]),
    );
    expectAnsweredEarly(result, 401, API_TOKEN_ERROR);
    // The first file was being stored (the request looked fine until then), and is gone.
    expect(created.length).toBeGreaterThan(0);
    await nothingStored();
  });

  it('a small body with api_token before the file, sent whole: 401 and nothing written', async () => {
    const { result, created } = await watchTmp(() =>
      streamUpload('/api/sips/import', { Authorization: `Bearer ${editor}` }, [
        { name: 'api_token', value: 'x' },
        { name: 'file', file: true, bytes: 1000 },
      ]),
    );
    // The rest of a small body is read and discarded: the answer arrives on a sound connection.
    expect(result.status).toBe(401);
    expect(result.body).toMatch(API_TOKEN_ERROR);
    expect(created).toEqual([]);
    await nothingStored();
  });
});

describe('after early answers', () => {
  it("the daemon keeps serving, and an editor's upload still works", async () => {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...Array<number>(18).fill(0)])]), 'ok.zip');
    const res = await daemon().fetch('/api/sips/import', {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${editor}` },
    });
    expect(res.status, await res.text()).toBe(202);
    expect(await entries(path.join(dataDir(), 'tmp'))).toEqual([]);
  });
});
