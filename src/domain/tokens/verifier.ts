// Checking a secret against a stored scrypt hash, the one expensive step a client without a valid
// token can make the daemon take: every check is one KDF run through the fair queue
// (kdf-queue.ts). A token id that does not exist is checked against a dummy hash made at start,
// the same run through the same queue, so a refusal costs the same whether the id exists or not
// (README "Security notes"). A hash made with other scrypt parameters is replaced on a match.
import type { Db } from '../../db/dialect.js';
import { randomBase62 } from './format.js';
import { hashSecret, needsRehash, verifySecret } from './hash.js';
import { KdfBusy, KdfQueue, type KdfQueueOptions } from './kdf-queue.js';

export class Verifier {
  readonly queue: KdfQueue;
  /** Secrets checked by a KDF run, dummy ones included (the metrics' archivectl_kdf_runs_total). */
  runs = 0;
  /** A hash of a secret nobody knows, made with the current parameters: unknown ids are checked against it. */
  private readonly dummy: Promise<string>;

  constructor(
    private readonly db: Db,
    options: KdfQueueOptions,
  ) {
    this.queue = new KdfQueue(options);
    this.dummy = hashSecret(randomBase62(40));
  }

  /**
   * Whether `secret` is the one `stored` was made from; with no stored hash (an unknown id) the
   * same KDF run is made against the dummy and the answer is false. Throws KdfBusy when the
   * queue has no room for `client`.
   */
  async matches(stored: string | undefined, secret: string, client: string): Promise<boolean> {
    const hash = stored ?? (await this.dummy);
    const ok = await this.queue.run(client, () => {
      this.runs++;
      return verifySecret(hash, secret);
    });
    return ok && stored !== undefined;
  }

  /**
   * The hash token `id` holds after a successful check of `secret` against `stored`: `stored`
   * itself, or, when it was made with other parameters, a fresh one, written only over `stored`
   * (a row another daemon re-hashed meanwhile keeps its own). The queue busy: re-hashed on a
   * later use.
   */
  async refresh(id: number, stored: string, secret: string, client: string): Promise<string> {
    if (!needsRehash(stored)) return stored;
    let fresh: string;
    try {
      fresh = await this.queue.run(client, () => hashSecret(secret));
    } catch (err) {
      if (err instanceof KdfBusy) return stored;
      throw err;
    }
    await this.db('tokens').where({ id, secret_hash: stored }).update({ secret_hash: fresh });
    return fresh;
  }
}
