// scrypt-kdf hashes of token secrets. The parameters travel inside each stored key, so they can
// be raised later: a key made with other parameters is re-hashed on its next successful use.
// N=2^11, r=8, p=1 (2 MiB): secrets have 238 bits (legacy 309), so scrypt only guards a leaked
// database; a higher N costs first-use latency, CPU on forged tokens, import time and memory for
// no gain against such secrets (bench/RESULTS.md, "Figures behind comments").
import { createHash, createHmac, scrypt, timingSafeEqual, type BinaryLike, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';
import * as scryptKdf from 'scrypt-kdf';

// The package's type file declares named exports, but its module exports one default object.
const Scrypt = (scryptKdf as unknown as { default: typeof scryptKdf }).default;

export const SCRYPT_PARAMS = { logN: 11, r: 8, p: 1 } as const;

export async function hashSecret(secret: string): Promise<string> {
  return Buffer.from(await Scrypt.kdf(secret, SCRYPT_PARAMS)).toString('base64');
}

// A stored key as scrypt-kdf writes it (96 bytes): "scrypt", version 0, logN, r and p (big-endian
// uint32), a 32-byte salt, the first 16 bytes of SHA-256 of those 48 bytes, then HMAC-SHA-256 of the
// first 64 bytes keyed with the second half of the 64-byte scrypt output.
const KEY_BYTES = 96;
const MAGIC = Buffer.from('scrypt\0');
// promisify's type takes scrypt's overload without options; the function takes them (node docs).
const scryptAsync = promisify(scrypt) as (
  s: BinaryLike,
  salt: BinaryLike,
  n: number,
  o: ScryptOptions,
) => Promise<Buffer>;

/**
 * Whether `secret` matches the stored key, as scrypt-kdf's verify answers, compared in constant
 * time. Checked here rather than by Scrypt.verify, whose SHA-256 and HMAC go through WebCrypto:
 * two more trips to the thread pool for each verification (bench/RESULTS.md, "Token verification
 * without WebCrypto").
 */
export async function verifySecret(hash: string, secret: string): Promise<boolean> {
  const key = Buffer.from(hash, 'base64');
  // A damaged stored key refuses; it does not crash the caller.
  if (key.length !== KEY_BYTES || !key.subarray(0, MAGIC.length).equals(MAGIC)) return false;
  const checksum = createHash('sha256').update(key.subarray(0, 48)).digest().subarray(0, 16);
  if (!timingSafeEqual(checksum, key.subarray(48, 64))) return false;
  const params = { N: 2 ** key[7]!, r: key.readUInt32BE(8), p: key.readUInt32BE(12), maxmem: 2 ** 31 - 1 };
  // Parameters scrypt refuses (thrown or called back) refuse the secret too.
  const derived = await scryptAsync(secret, key.subarray(16, 48), 64, params).catch(() => null);
  if (derived === null) return false;
  const mac = createHmac('sha256', derived.subarray(32)).update(key.subarray(0, 64)).digest();
  return timingSafeEqual(mac, key.subarray(64, KEY_BYTES));
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
