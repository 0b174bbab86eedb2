// A bounded memory of values worked out from a key: the value remembered for `key`, or the one
// `make` works out, kept unless the memory already holds `limit` entries, in which case it is
// emptied first. Emptying beats keeping an order of use: the keys (paths, query strings, query
// shapes) repeat, so a cleared memory fills again at once with the ones in use, and a client that
// sends endless new keys only costs the work it would have cost without the memory.

export function rememberIn<K, V>(memory: Map<K, V>, limit: number, key: K, make: (key: K) => V): V {
  let value = memory.get(key);
  if (value === undefined) {
    value = make(key);
    if (memory.size >= limit) memory.clear();
    memory.set(key, value);
  }
  return value;
}
