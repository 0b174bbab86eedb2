// Work that callers asking at the same time share: while a run for a key is in flight, a caller
// with the same key gets its promise instead of starting another. Once it settles the key is
// free again, so a later caller starts afresh (nothing is cached here).
export class SingleFlight<K, T> {
  private readonly flights = new Map<K, Promise<T>>();

  /** The running promise for `key`, or the one `make` starts (shared until it settles). */
  run(key: K, make: () => Promise<T>): Promise<T> {
    const running = this.flights.get(key);
    if (running) return running;
    const started = make().finally(() => this.flights.delete(key));
    this.flights.set(key, started);
    return started;
  }
}
