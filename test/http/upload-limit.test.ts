// An upload over limits.sipUploadBytes is answered 413 as soon as the limit is crossed: the
// daemon does not read (and discard) the rest, and keeps nothing of it.
import http from 'node:http';
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
});
