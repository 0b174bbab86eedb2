// Time comes from an injected clock so that expiry and handoff rules are tested without sleeping.
import { configError } from './errors.js';
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * ARCHIVECTL_NOW (an ISO 8601 instant) pins the CLI's clock. It exists so that the CLI's
 * time rules (expiry, 12-hour handoffs) can be exercised end to end without waiting; it
 * changes nothing an operator with database access could not already change.
 */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  const fixed = env.ARCHIVECTL_NOW;
  if (!fixed) return systemClock;
  const at = new Date(fixed);
  if (Number.isNaN(at.getTime())) throw configError('ARCHIVECTL_NOW is not an ISO 8601 instant');
  return { now: () => new Date(at.getTime()) };
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function utcDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}
