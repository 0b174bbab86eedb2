// Every line the daemon writes is a JSON log line, also when a client resets its connection
// while the daemon is answering: that is the client's doing, logged at debug, never Koa's
// default "Error: read ECONNRESET" with a stack on stderr. Through the built binary (its own
// stdout and stderr), with clients on raw sockets that reset after the first bytes of a large
// answer: alone, and with a second request pipelined behind it whose body never comes, which
// is still in the daemon's hands when the reset arrives.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicTokens, loadCatalog, type BasicTokens } from '../helpers/api.js';
import { createSandbox, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/daemon.js';
import { addressOf } from '../helpers/raw-http.js';
import { until } from '../helpers/until.js';

const RESETS = 4;

let box: Sandbox;
let daemon: SpawnedDaemon;
let t: BasicTokens;

beforeAll(async () => {
  box = await createSandbox();
  await patchConfig(box, { log: { level: 'debug' } });
  t = await basicTokens(box);
  // The TEI export of these is about a megabyte.
  const actors = Array.from({ length: 5_000 }, (_, i) => ({ name: `Reset actor ${i} ${'x'.repeat(120)}` }));
  await loadCatalog(box, 'resets.json', { actors });
  daemon = await spawnDaemon(box);
});

afterAll(async () => {
  await daemon?.stop();
  await box?.cleanup();
});

/** Sends `requests` on one connection, and resets it (RST) once the first bytes of an answer arrive. */
function resetAfterFirstBytes(requests: string): Promise<void> {
  const { host, port } = addressOf(daemon.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => socket.write(requests));
    socket.once('data', () => {
      socket.resetAndDestroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

const largeAnswer = () => `GET /api/tei/actors HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.user}\r\n\r\n`;
const unfinishedUpload = () =>
  'POST /api/actors HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  `Authorization: Bearer ${t.editor}\r\nContent-Length: 100\r\n\r\n{"name":`;

const entries = () => daemon.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
const accessLines = (method: string, path: string) =>
  entries().filter((e) => e.msg === 'request' && e.method === method && e.path === path).length;

describe('clients that reset while the daemon answers', () => {
  it('leave nothing on stderr; every stdout line is JSON; the resets are debug lines', async () => {
    for (let i = 0; i < RESETS; i++) {
      await resetAfterFirstBytes(largeAnswer());
      await resetAfterFirstBytes(largeAnswer() + unfinishedUpload());
    }
    await until(
      () => accessLines('GET', '/api/tei/actors') >= 2 * RESETS && accessLines('POST', '/api/actors') >= RESETS,
      'the access lines of the reset requests',
    );
    expect((await daemon.fetch('/healthz')).status).toBe(200);
    expect(daemon.stderr()).toBe('');
    expect(() => entries()).not.toThrow();
    const loud = entries().filter((e) => e.level === 'error' || e.level === 'fatal');
    expect(loud).toEqual([]);
    const resets = entries().filter((e) => e.msg === 'the client closed the connection before the answer was complete');
    expect(resets.length).toBeGreaterThanOrEqual(RESETS);
    for (const e of resets) {
      expect(e.level).toBe('debug');
      expect(e.code).toMatch(/^(ECONNRESET|EPIPE|ECONNABORTED|ERR_STREAM_PREMATURE_CLOSE)$/);
      expect(typeof e.request_id).toBe('string');
      expect(JSON.stringify(e)).not.toContain(t.editor);
    }
  });
});
