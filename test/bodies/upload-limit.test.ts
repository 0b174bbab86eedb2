// An upload over limits.sipUploadBytes is answered 413 as soon as the limit is crossed: the
// daemon does not read (and discard) the rest, and keeps nothing of it.
import http from 'node:http';
import net from 'node:net';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useDaemonWithConfig } from '../helpers/http.js';

describe('an upload over the size limit', () => {
  const limited = useDaemonWithConfig({ limits: { sipUploadBytes: 4096 } });

  it('is answered 413 while the client is still sending, and nothing is kept', async () => {
    const boundary = 'limitboundary';
    const url = new URL('/api/sips/import', limited.daemon.url);
    let sent = 0;
    const answer = await new Promise<{ status: number; body: string; sentBeforeAnswer: number }>((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${limited.editor}`,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(10 * 1024 * 1024),
        },
      });
      req.on('response', (res) => {
        const sentBeforeAnswer = sent;
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentBeforeAnswer }));
      });
      req.on('error', (err) => (sent > 0 ? undefined : reject(err)));
      req.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\nContent-Type: application/zip\r\n\r\nPK\u0003\u0004`,
      );
      // Send 16 KiB chunks, one every 20 ms: 10 MiB would take over 10 s.
      const chunk = Buffer.alloc(16 * 1024, 1);
      const timer = setInterval(() => {
        if (req.destroyed || sent >= 10 * 1024 * 1024) return clearInterval(timer);
        req.write(chunk);
        sent += chunk.length;
      }, 20);
      req.on('close', () => clearInterval(timer));
    });
    expect(answer.status).toBe(413);
    expect((JSON.parse(answer.body) as { error: string }).error).toMatch(/exceeds 4096 bytes/);
    expect(answer.sentBeforeAnswer).toBeLessThan(10 * 1024 * 1024);
    const tmp = await readdir(path.join(limited.box.dir, 'data', 'tmp')).catch(() => []);
    expect(tmp).toEqual([]);
    const sips = await readdir(path.join(limited.box.dir, 'data', 'sips')).catch(() => []);
    expect(sips).toEqual([]);
    expect(
      (await limited.daemon.fetch('/api/objects', { headers: { Authorization: `Bearer ${limited.editor}` } })).status,
    ).toBe(200);
  });

  it('is answered, then the rest is read and discarded until the client is done: no reset', async () => {
    // 8 MiB after the answer: far more than the socket buffers hold, so the client finishes only
    // if the daemon goes on reading after its 413 (it then closes cleanly, well within 2 s).
    const boundary = 'lingerboundary';
    const rest = 8 * 1024 * 1024;
    const { port } = new URL(limited.daemon.url);
    const outcome = await new Promise<{ answer: string; sentAll: boolean; error: string | null }>((resolve) => {
      const socket = net.connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
      let answer = '';
      let sentAll = false;
      let error: string | null = null;
      socket.on('data', (c: Buffer) => (answer += c.toString()));
      socket.on('error', (err) => (error = (err as NodeJS.ErrnoException).code ?? err.message));
      socket.on('close', () => resolve({ answer, sentAll, error }));
      const head =
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\n` +
        'Content-Type: application/zip\r\n\r\nPK\u0003\u0004';
      socket.write(
        `POST /api/sips/import HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${limited.editor}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${head.length + 8192 + rest}\r\n\r\n${head}`,
      );
      socket.write(Buffer.alloc(8192, 1)); // over the 4096-byte limit: the 413 is decided here
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      const more = () => {
        while (sent < rest) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', more);
        }
        sentAll = true;
        socket.end();
      };
      setTimeout(more, 50);
    });
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome).toMatchObject({ sentAll: true, error: null });
  });
});
