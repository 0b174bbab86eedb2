// Token values this daemon has verified, so that scrypt runs once per token per process: keyed by
// a SHA-256 of the value (the value itself is never kept), each with the token row it matched
// and the access generation under which that row was read. Bounded (lru-cache): the least
// recently used entry goes first, so tokens in use stay.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { TokenRow } from './queries.js';
import type { Restrictions } from './restrictions.js';

/** A verified token's row, as authentication needs it. */
export type AuthRow = Pick<
  TokenRow,
  | 'id'
  | 'selector'
  | 'account_id'
  | 'username'
  | 'role'
  | 'secret_hash'
  | 'secret_check'
  | 'expires_at'
  | 'revoked_at'
  | 'last_used_at'
  | 'scopes'
  | 'allow_from'
  | 'rate_limit'
> & {
  /** tokenExpiration(expires_at), set on first admission: no date formatting per request. */
  expiration?: string | null;
  /** The restriction columns read, set on first admission: no parsing per request. */
  restrictions?: Restrictions;
};

export interface VerifiedEntry {
  row: AuthRow;
  /** The access generation the row was read under: another one means read it again. */
  generation: string;
}

/** The cache key of a presented value. */
export function cacheKey(value: string): string {
  return createHash('sha256').update(value).digest('base64');
}

export class VerifiedTokens {
  private readonly entries: LRUCache<string, VerifiedEntry>;

  constructor(maxEntries: number) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry for `key`, which becomes the most recently used. */
  get(key: string): VerifiedEntry | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: VerifiedEntry): void {
    this.entries.set(key, entry);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
