// Waits for something a process does in its own time (a log line, a datagram, a row written by
// a coalescing timer), polling every 25 ms; fails the test naming what never came. The 30 s bound
// only guards a hang: on a machine kept busy a daemon's start alone can take several seconds.
const BOUND_MS = 30_000;

export async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** `until` for a check that must ask (a CLI run, a query): the check's own time counts. */
export async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Returns once the wall clock shows a later millisecond than when it was called (timestamps differ). */
export async function clockMoves(): Promise<void> {
  const now = Date.now();
  while (Date.now() <= now) await new Promise((r) => setImmediate(r));
}
