// lru-cache allocates all `max` slots of a table when it is made. A table that stays nearly empty
// until a flood or a crowd of clients fills it takes the same bound as `maxSize`, at one per key,
// and grows as keys arrive; it evicts the key used least recently either way.

/** lru-cache options that hold at most `keys` entries without allocating them up front. */
export const atMostKeys = (keys: number) => ({ maxSize: keys, sizeCalculation: () => 1 }) as const;
