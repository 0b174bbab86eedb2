// scrypt-kdf hashes of token secrets. The parameters travel inside each stored key, so they can
// be raised later: a key made with other parameters is re-hashed on its next successful use.
// N=2^11, r=8, p=1 (2 MiB): secrets have 238 bits (legacy 309), so scrypt only guards a leaked
// database; a higher N costs first-use latency, CPU on forged tokens, import time and memory for
// no gain against such secrets (bench/RESULTS.md, "Figures behind comments").
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
