// scrypt-kdf hashes of token secrets. The parameters travel inside each stored key, so they can
// be raised later: a key made with other parameters is re-hashed on its next successful use.
// N=2^11, r=8, p=1 (2 MiB): secrets have 238 bits (legacy 309), so scrypt only guards a leaked
// database; a higher N costs first-use latency, CPU on forged tokens, import time and memory for
// no gain against such secrets (bench/RESULTS.md, "Figures behind comments").
import { createHash, createHmac, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import * as scryptKdf from 'scrypt-kdf';

// The package's type file declares named exports, but its module exports one default object.
const Scrypt = (scryptKdf as unknown as { default: typeof scryptKdf }).default;

const scrypt = (secret: string, salt: Buffer, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(secret, salt, length, options, (err, derived) => (err ? reject(err) : resolve(derived))),
  );

export const SCRYPT_PARAMS = { logN: 11, r: 8, p: 1 } as const;

export async function hashSecret(secret: string): Promise<string> {
  return Buffer.from(await Scrypt.kdf(secret, SCRYPT_PARAMS)).toString('base64');
}

/**
 * Whether `secret` is the one `hash` (scrypt-kdf's 96-byte key) was made from: the key's own
 * checksum, then scrypt, then its HMAC compared in constant time, as scrypt-kdf's verify() does,
 * with one job on libuv's pool (the scrypt) instead of four: the hashes around it are a few
 * microseconds each, cheaper done here than handed to a thread (bench/RESULTS.md, restart storm).
 */
export async function verifySecret(hash: string, secret: string): Promise<boolean> {
  const key = Buffer.from(hash, 'base64');
  if (key.length !== 96) return false; // a damaged stored key refuses, it does not crash the caller
  const checksum = createHash('sha256').update(key.subarray(0, 48)).digest().subarray(0, 16);
  if (!timingSafeEqual(checksum, key.subarray(48, 64))) return false;
  const params = { N: 2 ** key.readUInt8(7), r: key.readUInt32BE(8), p: key.readUInt32BE(12), maxmem: 2 ** 31 - 1 };
  let derived: Buffer;
  try {
    derived = await scrypt(secret, key.subarray(16, 48), 64, params);
  } catch {
    return false;
  }
  const mac = createHmac('sha256', derived.subarray(32)).update(key.subarray(0, 64)).digest();
  return timingSafeEqual(mac, key.subarray(64, 96));
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
