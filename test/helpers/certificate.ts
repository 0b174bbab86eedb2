// A self-signed certificate for 127.0.0.1 and its key (mode 0600), made by openssl (Debian's
// openssl, installed by .ci/run), for daemons that serve HTTPS.
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { pathOf, systemTool } from './system-tools.js';

export const OPENSSL = systemTool('openssl', 'openssl');

/** Writes `cert.pem` and `key.pem` (for `name`) into `dir`; returns their paths. */
export function makeCertificate(dir: string, name = '127.0.0.1'): { cert: string; key: string } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync(
    pathOf(OPENSSL, 'openssl'),
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${name}`].concat([
      '-keyout',
      key,
      '-out',
      cert,
    ]),
    { stdio: 'ignore' },
  );
  chmodSync(key, 0o600); // whatever the umask and the openssl version
  return { cert, key };
}
