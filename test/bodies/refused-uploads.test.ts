// A request that will be refused never writes to disk, and api_token is found anywhere in a
// form, also past the parameters the form parser keeps.
import http from 'node:http';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAccounts, createToken } from '../helpers/cli.js';
import { useDaemon } from '../helpers/daemon.js';

const { cli, daemon } = useDaemon();

async function uploadWithout(headers: Record<string, string>): Promise<{ status: number; tmpWhileSending: string[] }> {
  const boundary = 'refusedboundary';
  const url = new URL('/api/sips/import', daemon().url);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        ...headers,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Transfer-Encoding': 'chunked',
      },
    });
    let tmpWhileSending: string[] = [];
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, tmpWhileSending }));
    });
    req.on('error', reject);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nPK\u0003\u0004`);
    req.write(Buffer.alloc(256 * 1024, 7));
    setTimeout(() => {
      void readdir(path.join(cli().dir, 'data', 'tmp'))
        .catch(() => [] as string[])
        .then((files) => {
          tmpWhileSending = files;
          req.end(`\r\n--${boundary}--\r\n`);
        });
    }, 300);
  });
}

describe('uploads of refused requests', () => {
  it('are not written to disk, without a token or with a token below editor', async () => {
    await createAccounts(cli(), { ruroot: 'superuser', rureader: 'user' });
    const reader = (await createToken(cli(), 'rureader', 'refused uploads', 'ruroot')).token;
    const anonymous = await uploadWithout({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.tmpWhileSending).toEqual([]);
    const user = await uploadWithout({ Authorization: `Bearer ${reader}` });
    expect(user.status).toBe(403);
    expect(user.tmpWhileSending).toEqual([]);
    const forged = await uploadWithout({ Authorization: `Bearer arc_${'C'.repeat(54)}` });
    expect(forged.status).toBe(401);
    expect(forged.tmpWhileSending).toEqual([]);
  });
});

describe('api_token in a long form', () => {
  it('is refused also after a thousand other fields', async () => {
    const filler = Array.from({ length: 1200 }, (_, i) => `f${i}=x`).join('&');
    const res = await daemon().fetch('/api/actors/reconcile', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `queries=%7B%7D&${filler}&api_token=late`,
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toMatch(/api_token parameter is no longer accepted/);
  });
});
