// Checking a secret against a stored scrypt hash, the one expensive step a client without a valid
// token can make the daemon take: every check is one KDF run through the fair queue
// (kdf-queue.ts). Only ids that name a row are checked: an unknown id costs no KDF run, and its
// refusal is answered at the same fixed deadline as any other (http/auth.ts, docs/security.md).
// A hash made with other scrypt parameters is replaced on a match.
import type { Db } from '../../db/dialect.js';
import { hashSecret, needsRehash, secretCheck, verifySecret } from './hash.js';
import { KdfBusy, KdfQueue, type KdfQueueOptions } from './kdf-queue.js';
import type { AuthRow } from './verified-cache.js';

export class Verifier {
  readonly queue: KdfQueue;
  /** Secrets checked by a KDF run (the metrics' archivectl_kdf_runs_total). */
  runs = 0;

  constructor(
    private readonly db: Db,
    options: KdfQueueOptions,
  ) {
    this.queue = new KdfQueue(options);
  }

  /**
   * Whether `secret` is the one `stored` was made from. Throws KdfBusy when the queue has no room
   * for `client`, unless `wait` (a leak report's check, which must be made).
   */
  matches(stored: string, secret: string, client: string, { wait = false } = {}): Promise<boolean> {
    return this.queue.run(
      client,
      () => {
        this.runs++;
        return verifySecret(stored, secret);
      },
      { wait },
    );
  }

  /**
   * After a successful check of `secret`, brings `row` up to date: a hash made with other
   * parameters is replaced, and a missing fingerprint written, each only over the values read
   * (a row another daemon changed meanwhile keeps its own). The queue busy: re-hashed later.
   */
  async settle(
    row: Pick<AuthRow, 'id' | 'secret_hash' | 'secret_check'>,
    secret: string,
    client: string,
  ): Promise<void> {
    const stored = row.secret_hash;
    const changes: { secret_hash?: string; secret_check?: string } = {};
    // `undefined`: a daemon reading a database rolled back to before the column; nothing to write.
    if (row.secret_check === null) changes.secret_check = secretCheck(secret);
    if (needsRehash(stored)) {
      try {
        changes.secret_hash = await this.queue.run(client, () => hashSecret(secret));
      } catch (err) {
        if (!(err instanceof KdfBusy)) throw err;
      }
    }
    if (changes.secret_hash === undefined && changes.secret_check === undefined) return;
    await this.db('tokens').where({ id: row.id, secret_hash: stored }).update(changes);
    Object.assign(row, changes);
  }
}
