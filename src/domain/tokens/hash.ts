// scrypt-kdf hashes of token secrets. The parameters travel inside each stored key, so they can
// be raised later: a key made with other parameters is re-hashed on its next successful use.
// Why N=2^11, r=8, p=1 (2 MiB; 3.4 ms per hash alone, 4.6 ms under the benchmark, ~660/s on 2
// cores): secrets have 238 bits (legacy 309), so scrypt only guards a leaked database. More cost
// is paid in first-use latency, CPU on forged tokens, legacy import time, and memory (each run's
// scratch stays in its libuv thread's malloc arena): 2^12 (4 MiB, 6.5 ms) measured twice the
// latency and import time and 16 MB of retained scratch, for no gain against 238-bit secrets.
import { createHash } from 'node:crypto';
import * as scryptKdf from 'scrypt-kdf';

// The package's type file declares named exports, but its module exports one default object.
const Scrypt = (scryptKdf as unknown as { default: typeof scryptKdf }).default;

export const SCRYPT_PARAMS = { logN: 11, r: 8, p: 1 } as const;

export async function hashSecret(secret: string): Promise<string> {
  return Buffer.from(await Scrypt.kdf(secret, SCRYPT_PARAMS)).toString('base64');
}

/** Constant-time comparison of the derived key (scrypt-kdf uses crypto.timingSafeEqual). */
export async function verifySecret(hash: string, secret: string): Promise<boolean> {
  try {
    return await Scrypt.verify(Buffer.from(hash, 'base64'), secret);
  } catch {
    return false; // a damaged stored key refuses, it does not crash the caller
  }
}

export function needsRehash(hash: string): boolean {
  try {
    const p = Scrypt.viewParams(Buffer.from(hash, 'base64'));
    return p.logN !== SCRYPT_PARAMS.logN || p.r !== SCRYPT_PARAMS.r || p.p !== SCRYPT_PARAMS.p;
  } catch {
    return true;
  }
}

/**
 * A 24-bit fingerprint of a secret, stored beside its hash: a leak report holding many values for
 * one token id runs the KDF only on those whose fingerprint matches (about one in 16 million
 * forged ones). 24 bits of a SHA-256 tell nothing useful about a 238-bit secret.
 */
export function secretCheck(secret: string): string {
  return createHash('sha256').update(`archivectl secret check\0${secret}`).digest('base64url').slice(0, 4);
}
