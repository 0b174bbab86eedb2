// The value remembered for a key, or the one `make` works out, kept in a bounded memory
// (lru-cache): when it is full the entry used longest ago goes, so the keys in use (paths, query
// strings) stay, and a client that sends endless new keys only costs the work it would have cost
// without the memory.
import { LRUCache } from 'lru-cache';

export class Remembered<K extends NonNullable<unknown>, V extends NonNullable<unknown>> {
  private readonly memory: LRUCache<K, V>;

  constructor(limit: number) {
    this.memory = new LRUCache({ max: limit });
  }

  get(key: K, make: (key: K) => V): V {
    let value = this.memory.get(key);
    if (value === undefined) {
      value = make(key);
      this.memory.set(key, value);
    }
    return value;
  }
}
