// Bounded concurrency for load-style tests.

/** Runs tasks with at most `limit` in flight; results in order. */
export async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/**
 * Runs `task(i)` for i = 0, 1, 2, … with `limit` in flight, until at least `min` have run and
 * `keepGoing()` is false, or `max` have run.
 */
export async function stream<T>(
  task: (i: number) => Promise<T>,
  opts: { limit: number; min: number; max: number; keepGoing?: () => boolean },
): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const more = () => next < opts.max && (next < opts.min || (opts.keepGoing?.() ?? false));
  const worker = async () => {
    while (more()) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: opts.limit }, worker));
  return results;
}
