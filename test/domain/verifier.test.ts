// The verifier (src/domain/tokens/verifier.ts) and the hashes it checks (hash.ts): one KDF run per
// check, the queue's refusal when full, and re-hashing that
// replaces only the one token's stored hash.
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, needsRehash, SCRYPT_PARAMS, secretCheck, verifySecret } from '../../src/domain/tokens/hash.js';
import { KdfBusy } from '../../src/domain/tokens/kdf-queue.js';
import { Verifier } from '../../src/domain/tokens/verifier.js';
import { createToken, type Sandbox, sandboxWithDb, closeSandboxWithDb } from '../helpers/cli.js';

const scrypt = (
  (await import('scrypt-kdf')) as unknown as {
    default: { kdf(p: string, o: object): Promise<Uint8Array>; viewParams(k: Uint8Array): Record<string, number> };
  }
).default;
const hashWith = async (secret: string, params: Partial<Record<keyof typeof SCRYPT_PARAMS, number>>) =>
  Buffer.from(await scrypt.kdf(secret, { ...SCRYPT_PARAMS, ...params })).toString('base64');
const paramsOf = (hash: string) => scrypt.viewParams(Buffer.from(hash, 'base64'));

const ROOMY = { concurrency: 1, perClient: 16, total: 64 };
let box: Sandbox;
let db: Knex;

beforeAll(async () => {
  ({ box, db } = await sandboxWithDb({ root: 'superuser', reader: 'user' }));
});

afterAll(() => closeSandboxWithDb(box, db));

describe('stored hashes', () => {
  it('need re-hashing when any scrypt parameter differs, or the key is damaged', async () => {
    const secret = 'a'.repeat(40);
    expect(needsRehash(await hashSecret(secret))).toBe(false);
    expect(paramsOf(await hashSecret(secret))).toMatchObject(SCRYPT_PARAMS);
    expect(needsRehash(await hashWith(secret, { logN: SCRYPT_PARAMS.logN - 1 }))).toBe(true);
    expect(needsRehash(await hashWith(secret, { r: 4 }))).toBe(true);
    expect(needsRehash(await hashWith(secret, { p: 2 }))).toBe(true);
    expect(needsRehash('not a key')).toBe(true);
  });

  it('verify the secret they were made from, and refuse others and damaged keys without throwing', async () => {
    const hash = await hashSecret('right');
    expect(await verifySecret(hash, 'right')).toBe(true);
    expect(await verifySecret(hash, 'wrong')).toBe(false);
    expect(await verifySecret('AAAA', 'right')).toBe(false);
    expect(await verifySecret(await hashWith('right', { r: 4 }), 'right')).toBe(true);
  });

  it("answer as scrypt-kdf's own verify for keys it made with other parameters", async () => {
    const kdf = scrypt as unknown as { verify(k: Uint8Array, p: string): Promise<boolean> };
    for (const params of [{}, { logN: 10 }, { r: 4 }, { p: 2 }]) {
      const hash = await hashWith('right', params);
      for (const secret of ['right', 'Right', 'right ', '']) {
        expect(await verifySecret(hash, secret)).toBe(await kdf.verify(Buffer.from(hash, 'base64'), secret));
      }
    }
  });

  it('refuse a key with any one bit changed, a key of another length, and a damaged one without throwing', async () => {
    const key = Buffer.from(await hashSecret('right'), 'base64');
    expect(key).toHaveLength(96);
    for (let byte = 0; byte < key.length; byte++) {
      for (const bit of [0x01, 0x80]) {
        const changed = Buffer.from(key);
        changed[byte]! ^= bit;
        expect(await verifySecret(changed.toString('base64'), 'right'), `byte ${byte}, bit ${bit}`).toBe(false);
      }
    }
    expect(await verifySecret(key.subarray(0, 95).toString('base64'), 'right')).toBe(false);
    expect(await verifySecret(Buffer.concat([key, Buffer.from([0])]).toString('base64'), 'right')).toBe(false);
    expect(await verifySecret('', 'right')).toBe(false);
    expect(await verifySecret('not base64 at all!', 'right')).toBe(false);
  });

  it('refuse a consistent key in another format, or with parameters scrypt refuses, without throwing', async () => {
    const { createHash, createHmac, scryptSync } = await import('node:crypto');
    // A key whose checksum and MAC are right for its own bytes: only its header is wrong.
    const forged = (header: Buffer, logN: number) => {
      const out = Buffer.alloc(96);
      header.copy(out, 0);
      out[7] = logN;
      out.writeUInt32BE(8, 8);
      out.writeUInt32BE(1, 12);
      out.fill(7, 16, 48);
      createHash('sha256').update(out.subarray(0, 48)).digest().copy(out, 48, 0, 16);
      if (logN >= 1 && logN <= 16) {
        const derived = scryptSync('right', out.subarray(16, 48), 64, { N: 2 ** logN, r: 8, p: 1 });
        createHmac('sha256', derived.subarray(32)).update(out.subarray(0, 64)).digest().copy(out, 64);
      }
      return out.toString('base64');
    };
    expect(await verifySecret(forged(Buffer.from('scrypt\0'), 11), 'right')).toBe(true);
    expect(await verifySecret(forged(Buffer.from('scrypt\x01'), 11), 'right')).toBe(false);
    expect(await verifySecret(forged(Buffer.from('Scrypt\0'), 11), 'right')).toBe(false);
    expect(await verifySecret(forged(Buffer.from('scrypt\0'), 0), 'right')).toBe(false);
    expect(await verifySecret(forged(Buffer.from('scrypt\0'), 64), 'right')).toBe(false);
    expect(await verifySecret(forged(Buffer.from('scrypt\0'), 255), 'right')).toBe(false);
  });
});

describe('the verifier', () => {
  it('runs the KDF once per check', async () => {
    const verifier = new Verifier(db, ROOMY);
    const hash = await hashSecret('s3cret');
    expect(await verifier.matches(hash, 's3cret', 'c')).toBe(true);
    expect(await verifier.matches(hash, 'other', 'c')).toBe(false);
    expect(await verifier.matches('AAAA', 's3cret', 'c')).toBe(false);
    expect(verifier.runs).toBe(3);
  });

  it('is refused with KdfBusy, running nothing, when the queue has no room for the client', async () => {
    const verifier = new Verifier(db, { concurrency: 1, perClient: 1, total: 1 });
    const hash = await hashSecret('s3cret');
    const running = verifier.matches(hash, 's3cret', 'c');
    const waiting = verifier.matches(hash, 'nope', 'c');
    await expect(verifier.matches(hash, 's3cret', 'c')).rejects.toBeInstanceOf(KdfBusy);
    expect(await running).toBe(true);
    expect(await waiting).toBe(false);
    expect(verifier.runs).toBe(2);
  });

  it('re-hashes a token made with other parameters, writing its row only', async () => {
    const mine = await createToken(box, 'reader', 'rehash me', 'root');
    const other = await createToken(box, 'reader', 'leave me', 'root');
    const secret = mine.token.slice(12, 52);
    const old = await hashWith(secret, { logN: SCRYPT_PARAMS.logN - 1 });
    await db('tokens').where('selector', mine.id).update({ secret_hash: old });
    const row = await db('tokens').where('selector', mine.id).first<{ id: number }>('id');
    const hashOf = async (id: string) =>
      (await db('tokens').where('selector', id).first<{ secret_hash: string }>('secret_hash')).secret_hash;
    const otherBefore = await hashOf(other.id);
    const verifier = new Verifier(db, ROOMY);
    const settled = { id: row.id, secret_hash: old, secret_check: secretCheck(secret) };
    await verifier.settle(settled, secret, 'c');
    const fresh = settled.secret_hash;
    expect(paramsOf(fresh)).toMatchObject(SCRYPT_PARAMS);
    expect(await verifySecret(fresh, secret)).toBe(true);
    expect(await hashOf(mine.id)).toBe(fresh);
    expect(await hashOf(other.id)).toBe(otherBefore);
    // A hash with the current parameters is kept as it is: no write.
    const statements: string[] = [];
    const seen = (q: { sql: string }) => statements.push(q.sql);
    db.on('query', seen);
    try {
      await verifier.settle(settled, secret, 'c');
    } finally {
      db.off('query', seen);
    }
    expect(settled.secret_hash).toBe(fresh);
    expect(statements).toEqual([]);
  });

  it("writes a missing fingerprint of the secret over the row's own hash only", async () => {
    const mine = await createToken(box, 'reader', 'made before fingerprints', 'root');
    const secret = mine.token.slice(12, 52);
    await db('tokens').where('selector', mine.id).update({ secret_check: null });
    const row = await db('tokens')
      .where('selector', mine.id)
      .first<{ id: number; secret_hash: string; secret_check: string | null }>('id', 'secret_hash', 'secret_check');
    expect(row.secret_check).toBeNull();
    const verifier = new Verifier(db, ROOMY);
    // A row read before another daemon changed its hash: nothing written.
    await verifier.settle({ ...row, secret_hash: 'stale' }, secret, 'c');
    expect(
      (await db('tokens').where('id', row.id).first<{ secret_check: string | null }>('secret_check')).secret_check,
    ).toBeNull();
    await verifier.settle(row, secret, 'c');
    expect(row.secret_check).toBe(secretCheck(secret));
    expect(
      (await db('tokens').where('id', row.id).first<{ secret_check: string | null }>('secret_check')).secret_check,
    ).toBe(secretCheck(secret));
    expect(secretCheck(secret)).toMatch(/^[A-Za-z0-9_-]{4}$/);
    // Another last character (a secret that ends in x gets a y), so the two secrets always differ.
    const other = `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`;
    expect(secretCheck(secret)).not.toBe(secretCheck(other));
  });

  it('does not overwrite a hash another daemon replaced meanwhile', async () => {
    const t = await createToken(box, 'reader', 'raced', 'root');
    const secret = t.token.slice(12, 52);
    const old = await hashWith(secret, { logN: SCRYPT_PARAMS.logN - 1 });
    const theirs = await hashSecret(secret);
    await db('tokens').where('selector', t.id).update({ secret_hash: theirs });
    const row = await db('tokens').where('selector', t.id).first<{ id: number }>('id');
    await new Verifier(db, ROOMY).settle({ id: row.id, secret_hash: old, secret_check: 'AAAA' }, secret, 'c');
    const stored = await db('tokens').where('selector', t.id).first<{ secret_hash: string }>('secret_hash');
    expect(stored.secret_hash).toBe(theirs);
  });

  it('leaves the re-hash for a later use while the queue is full', async () => {
    const t = await createToken(box, 'reader', 'busy rehash', 'root');
    const secret = t.token.slice(12, 52);
    const old = await hashWith(secret, { logN: SCRYPT_PARAMS.logN - 1 });
    await db('tokens').where('selector', t.id).update({ secret_hash: old });
    const row = await db('tokens').where('selector', t.id).first<{ id: number }>('id');
    const verifier = new Verifier(db, { concurrency: 1, perClient: 1, total: 1 });
    const hash = await hashSecret('x');
    const busy = [verifier.matches(hash, 'x', 'c'), verifier.matches(hash, 'x', 'c')];
    const settled = { id: row.id, secret_hash: old, secret_check: secretCheck(secret) };
    await verifier.settle(settled, secret, 'c');
    expect(settled.secret_hash).toBe(old);
    await Promise.all(busy);
    const stored = await db('tokens').where('selector', t.id).first<{ secret_hash: string }>('secret_hash');
    expect(stored.secret_hash).toBe(old);
  });

  it('passes on a failure of the re-hash other than a full queue, and leaves the row as it was', async () => {
    const t = await createToken(box, 'reader', 'failed rehash', 'root');
    const old = await hashWith(t.token.slice(12, 52), { logN: SCRYPT_PARAMS.logN - 1 });
    await db('tokens').where('selector', t.id).update({ secret_hash: old });
    const row = await db('tokens').where('selector', t.id).first<{ id: number }>('id');
    // Not a string: the KDF itself refuses (a failure no queue state explains must not be taken for one).
    const refresh = new Verifier(db, ROOMY).settle(
      { id: row.id, secret_hash: old, secret_check: 'AAAA' },
      null as unknown as string,
      'c',
    );
    await expect(refresh).rejects.toThrow(TypeError);
    const stored = await db('tokens').where('selector', t.id).first<{ secret_hash: string }>('secret_hash');
    expect(stored.secret_hash).toBe(old);
  });
});
