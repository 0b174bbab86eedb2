// Slow clients cannot hold the daemon (docs/security.md, "One client cannot hold the server"; src/http/server.ts: headersTimeout and
// requestTimeout from `timeouts.*`). With short timeouts (headers 1 s, whole request 3 s):
// - 50 connections that send part of a request line or of the headers and then stall, and
//   10 that send complete headers and trickle the body one byte a second, are all open at once;
// - meanwhile normal requests with an editor token are answered, while the slow ones are held;
// - after the timeouts, the server closes every stalled connection, answering 408 JSON or
//   nothing, and it keeps serving.
import { describe, expect, it } from 'vitest';
import { useDaemonWithConfig } from '../helpers/http.js';
import { holdConnection, parseResponse, type HeldSocket } from '../helpers/raw-http.js';

const HEADERS_MS = 1000;
const REQUEST_MS = 3000;

const slow = useDaemonWithConfig({ timeouts: { headersMs: HEADERS_MS, requestMs: REQUEST_MS } });

const PARTIAL_STARTS = [
  'G',
  'GET /api/act',
  'GET /api/actors HTTP/1.1',
  'GET /api/actors HTTP/1.1\r\n',
  'GET /api/actors HTTP/1.1\r\nHost: 127.0.0.1\r\n',
  'GET /api/objects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bear',
  'POST /api/actors HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Le',
  'POST /api/sips/import HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ',
  'HEAD /api/places HTTP/1.1\r\nHost: 127.0.0.1\r\n\r', // one CR short of the end of the headers
  '', // connect and send nothing at all
];

describe('slow clients', () => {
  it('serves normal requests while 60 slow connections are open, then closes the slow ones', async () => {
    const stalled: HeldSocket[] = [];
    const trickling: HeldSocket[] = [];
    const timers: NodeJS.Timeout[] = [];
    try {
      // 50 connections that stall inside the request line or the headers.
      for (let i = 0; i < 50; i++) {
        const held = await holdConnection(slow.daemon.url);
        const start = PARTIAL_STARTS[i % PARTIAL_STARTS.length] as string;
        if (start) held.socket.write(start);
        stalled.push(held);
      }
      // 10 connections with complete headers that trickle a 200-byte body, one byte a second
      // (the client's pace, not a wait).
      const body = JSON.stringify({ name: 'trickled', comment: 'x'.repeat(200) });
      for (let i = 0; i < 10; i++) {
        const held = await holdConnection(slow.daemon.url);
        held.socket.write(
          `POST /api/actors HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${slow.editor}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
        );
        let at = 0;
        const timer = setInterval(() => {
          if (held.isClosed() || at >= body.length) {
            clearInterval(timer);
            return;
          }
          held.socket.write(body[at] as string);
          at++;
        }, 1000);
        timers.push(timer);
        trickling.push(held);
      }
      // While they are open: normal requests are answered.
      const auth = { Authorization: `Bearer ${slow.editor}` };
      const openNow = () => [...stalled, ...trickling].filter((h) => !h.isClosed()).length;
      const openWhenAnswered: number[] = [];
      for (let i = 0; i < 10; i++) {
        const list = await slow.daemon.fetch('/api/actors?perPage=5', { headers: auth });
        expect(list.status).toBe(200);
        await list.arrayBuffer();
        openWhenAnswered.push(openNow());
        const created = await slow.daemon.fetch('/api/actors', {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `normal while slow ${i}` }),
        });
        expect(created.status).toBe(201);
        await created.arrayBuffer();
        openWhenAnswered.push(openNow());
      }
      // The slow connections were really being held while those were served.
      console.log(
        `[slow-clients] slow connections open as each normal request was answered: ${openWhenAnswered.join(', ')}`,
      );
      expect(
        openWhenAnswered[0],
        'slow connections open when the first normal request was answered',
      ).toBeGreaterThanOrEqual(10);

      // After the timeouts, the server closes every one of them (the test's own time limit
      // bounds the wait).
      const all = [...stalled, ...trickling];
      await Promise.all(all.map((h) => h.closed));
      console.log(
        `[slow-clients] ${stalled.length} stalled and ${trickling.length} trickling connections closed by the server (headersMs ${HEADERS_MS}, requestMs ${REQUEST_MS})`,
      );

      // What the server said before closing: nothing, or a 408/400 JSON answer, never a 5xx.
      for (const held of all) {
        const received = held.received();
        if (received.length === 0) continue;
        const res = parseResponse(received, { atEnd: true });
        expect(res, received.toString('latin1').slice(0, 200)).not.toBeNull();
        expect([400, 408]).toContain(res?.status);
        expect(typeof (JSON.parse(res?.text ?? '') as { error?: unknown }).error).toBe('string');
      }
      // None of the trickled bodies became an actor (they never finished).
      const list = await slow.daemon.fetch('/api/actors?search=trickled', { headers: auth });
      expect(((await list.json()) as { meta: { total: number } }).meta.total).toBe(0);
    } finally {
      for (const t of timers) clearInterval(t);
      for (const h of [...stalled, ...trickling]) h.socket.destroy();
    }

    // And the daemon is still serving.
    const res = await slow.daemon.fetch('/api/objects', { headers: { Authorization: `Bearer ${slow.editor}` } });
    expect(res.status).toBe(200);
    expect(slow.daemon.running()).toBe(true);
  });
});
