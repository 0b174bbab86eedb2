// Time comes from an injected clock so that expiry and handoff rules are tested without sleeping:
// a parameter (the daemon's options, the CLI's main(argv, io)), never an environment variable: a
// pinned clock would let anyone running the CLI back-date audit entries or mint tokens for years.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** `YYYY-MM-DD` of an instant, in UTC. */
export function utcDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}
