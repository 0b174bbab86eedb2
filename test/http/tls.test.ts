// HTTPS when a certificate and key are configured (docs/configuration.md), through a real daemon: the suites it
// accepts, HSTS when configured, and a key file that others could write or read refused at start.
import { chmod, chown, copyFile, readFile, writeFile } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../helpers/cli.js';
import { makeCertificate, OPENSSL } from '../helpers/certificate.js';
import { patchConfig } from '../helpers/config.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';

const isRoot = process.getuid?.() === 0;

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function get(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false, agent: false }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      })
      .on('error', reject);
  });
}

/** A TLS handshake offering only `options`' suites: the suite agreed on, or the error that ended it. */
function handshake(url: string, options: tls.ConnectionOptions): Promise<{ cipher: string } | { error: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const s = tls.connect({ host: hostname, port: Number(port), rejectUnauthorized: false, ...options }, () => {
      resolve({ cipher: s.getCipher().standardName });
      s.destroy();
    });
    s.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
  });
}

describe.skipIf(OPENSSL.skip !== null)('the daemon with tls.cert and tls.key', () => {
  let box: Sandbox;
  let daemon: RunningDaemon;

  beforeAll(async () => {
    box = await createSandbox();
    makeCertificate(box.dir);
    // Relative to the configuration file, like every path in it.
    await patchConfig(box, { tls: { cert: './cert.pem', key: './key.pem' } });
    daemon = await startDaemon(box);
  });
  afterAll(async () => {
    await daemon?.stop();
    await box?.cleanup();
  });

  it('speaks HTTPS and answers JSON, without HSTS unless configured', async () => {
    expect(daemon.url).toMatch(/^https:\/\//);
    const { status, body, headers } = await get(`${daemon.url}/api/objects`);
    expect(status).toBe(401);
    expect(headers['www-authenticate']).toBe('Bearer realm="archive"');
    expect(typeof (JSON.parse(body) as { error: unknown }).error).toBe('string');
    expect(headers['strict-transport-security']).toBeUndefined();
  });

  it('agrees on TLS 1.3, or TLS 1.2 with forward secrecy and an AEAD suite', async () => {
    const modern = await handshake(daemon.url, {});
    expect('cipher' in modern && modern.cipher).toMatch(/^TLS_AES_|^TLS_CHACHA20_/);
    for (const suite of ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-RSA-CHACHA20-POLY1305'])
      expect(await handshake(daemon.url, { maxVersion: 'TLSv1.2', ciphers: suite })).toHaveProperty('cipher');
  });

  it.each([
    ['static RSA key exchange (no forward secrecy)', 'AES128-GCM-SHA256:AES256-GCM-SHA384:AES128-SHA256:AES128-SHA'],
    ['CBC with SHA-1', 'ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA:DHE-RSA-AES128-SHA'],
    ['CBC with SHA-2', 'ECDHE-RSA-AES128-SHA256:ECDHE-RSA-AES256-SHA384:DHE-RSA-AES256-SHA256'],
    ['ARIA', 'ECDHE-ARIA128-GCM-SHA256:ECDHE-ARIA256-GCM-SHA384:ARIA128-GCM-SHA256'],
    ['CCM', 'AES128-CCM:AES128-CCM8:DHE-RSA-AES128-CCM8'],
  ])('refuses a client offering only %s', async (_what, ciphers) => {
    const result = await handshake(daemon.url, { maxVersion: 'TLSv1.2', ciphers });
    expect(result).toHaveProperty('error');
  });

  it('refuses TLS 1.1, and the TLS 1.3 CCM suites', async () => {
    const tls11 = { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' } as const;
    expect(await handshake(daemon.url, tls11)).toHaveProperty('error');
    const ccm = { minVersion: 'TLSv1.3', ciphers: 'TLS_AES_128_CCM_8_SHA256:TLS_AES_128_CCM_SHA256' } as const;
    expect(await handshake(daemon.url, ccm)).toHaveProperty('error');
  });

  it('stops with a configuration error naming the key when the certificate cannot be read', async () => {
    const other = await createSandbox();
    try {
      await patchConfig(other, { tls: { cert: './missing.pem', key: './missing.key' } });
      const r = await other.run(['serve', '--port', '0']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('"tls.cert"');
      expect(r.stderr).toContain(other.configFile.replace(/config\.json$/, 'missing.pem'));
    } finally {
      await other.cleanup();
    }
  });

  describe('tls.hsts', () => {
    it('sends Strict-Transport-Security with the configured max-age on every answer', async () => {
      const other = await createSandbox();
      makeCertificate(other.dir);
      await patchConfig(other, { tls: { cert: './cert.pem', key: './key.pem', hsts: 31536000 } });
      const hsts = await startDaemon(other);
      try {
        for (const p of ['/api/objects', '/healthz', '/no/such/path'])
          expect((await get(`${hsts.url}${p}`)).headers['strict-transport-security']).toBe('max-age=31536000');
      } finally {
        await hsts.stop();
        await other.cleanup();
      }
    });

    it('is refused without a certificate: HSTS over plain HTTP means nothing', async () => {
      const other = await createSandbox();
      try {
        await patchConfig(other, { tls: { hsts: 31536000 } });
        const r = await other.run(['serve', '--port', '0']);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('"tls.hsts" is sent only over HTTPS');
      } finally {
        await other.cleanup();
      }
    });
  });

  describe('a key file others could write or read', () => {
    /** A config beside the sandbox's, naming a copy of the key with `mode` (and `owner`). */
    async function withKey(name: string, mode: number, owner?: number): Promise<{ config: string; key: string }> {
      const key = path.join(box.dir, `${name}.pem`);
      await copyFile(path.join(box.dir, 'key.pem'), key);
      if (owner !== undefined) await chown(key, owner, owner);
      await chmod(key, mode);
      const config = path.join(box.dir, `${name}.json`);
      const base = JSON.parse(await readFile(box.configFile, 'utf8')) as Record<string, unknown>;
      await writeFile(config, JSON.stringify({ ...base, tls: { cert: './cert.pem', key: `./${name}.pem` } }), {
        mode: 0o600,
      });
      return { config, key };
    }

    /** Starting the daemon on that config ends with exit status 2 and one line naming the key and the fix. */
    async function expectRefused(name: string, mode: number, fix: RegExp, owner?: number) {
      const { config, key } = await withKey(name, mode, owner);
      const started = await startDaemon({ ...box, configFile: config }).catch((err: Error) => err);
      if (!(started instanceof Error)) await started.stop();
      expect(started).toBeInstanceOf(Error);
      const [exit, line] = (started as Error).message.split('\n');
      expect(exit).toBe('the daemon exited (2) before listening:');
      expect(line).toContain(`the TLS key file ${key}`);
      expect(line).toMatch(fix);
    }

    it.each(['0666', '0646', '0620'])('refuses mode %s (others may write it), naming chmod go-w', async (octal) => {
      await expectRefused(`writable-${octal}`, parseInt(octal, 8), /chmod go-w /);
    });

    it.each(['0644', '0604'])('refuses mode %s (every user may read it), naming chmod o-rwx', async (octal) => {
      await expectRefused(`readable-${octal}`, parseInt(octal, 8), /every user may read the private key.*chmod o-rwx /);
    });

    it.skipIf(!isRoot)("refuses another user's key file, naming chown (needs root to give it away)", async () => {
      await expectRefused('nobodys', 0o600, /belongs to nobody: .*chown root /, 65534);
    });

    it('accepts a key its group may read (Debian gives keys to ssl-cert)', async () => {
      const other = await createSandbox();
      try {
        await chmod(makeCertificate(other.dir).key, 0o640);
        await patchConfig(other, { tls: { cert: './cert.pem', key: './key.pem' } });
        const started = await startDaemon(other);
        expect((await get(`${started.url}/healthz`)).status).toBe(200);
        await started.stop();
      } finally {
        await other.cleanup();
      }
    });
  });
});
