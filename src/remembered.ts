// The value remembered for `key`, or the one `make` works out, kept (the memory is emptied first
// when it holds `limit` entries). Emptying beats keeping an order of use: the keys (paths, query
// strings) repeat, so a cleared memory fills again at once with the ones in use, and a client that
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
