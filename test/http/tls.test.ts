// HTTPS when a certificate and key are configured (SPEC §5), through a real daemon.
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';

// openssl makes the test certificate (Debian's openssl, installed by .ci/run).
const OPENSSL = systemTool('openssl', 'openssl');

describe.skipIf(OPENSSL.skip !== null)('the daemon with tls.cert and tls.key', () => {
  let box: Sandbox;
  let daemon: RunningDaemon;

  beforeAll(async () => {
    box = await createSandbox();
    execFileSync(
      pathOf(OPENSSL, 'openssl'),
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        path.join(box.dir, 'key.pem'),
        '-out',
        path.join(box.dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    // Relative to the configuration file, like every path in it.
    await patchConfig(box, { tls: { cert: './cert.pem', key: './key.pem' } });
    daemon = await startDaemon(box);
  });
  afterAll(async () => {
    await daemon?.stop();
    await box?.cleanup();
  });

  it('speaks HTTPS and answers JSON', async () => {
    expect(daemon.url).toMatch(/^https:\/\//);
    const { status, body, header } = await new Promise<{ status: number; body: string; header: string | undefined }>(
      (resolve, reject) => {
        https
          .get(`${daemon.url}/api/objects`, { rejectUnauthorized: false }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, body: text, header: res.headers['www-authenticate'] }),
            );
          })
          .on('error', reject);
      },
    );
    expect(status).toBe(401);
    expect(header).toBe('Bearer realm="archive"');
    expect(typeof (JSON.parse(body) as { error: unknown }).error).toBe('string');
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
});
