// Reading what reconciliation clients send: a JSON document in a parameter (`queries`,
// `extend`) given as text (a query string or form field) or already parsed (a JSON body), and
// the short strings inside it.
import { invalid } from '../../../errors.js';
import { hasControlChars, isPlainObject } from '../fields.js';

/** The most candidates or suggestions one query may ask for. */
export const MAX_LIMIT = 100;
/**
 * The largest `limit` a query may ask for: more is that query's error (0.2) or a 422 (1.0-draft);
 * up to it, a limit is answered with at most MAX_LIMIT candidates.
 */
export const MAX_ASKED_LIMIT = 1_000_000;
/** Rows fetched by substring before ranking: enough for the first pages, bounded in cost. */
export const POOL = 200;

/** The most queries in one batch: the manifest's `batchSize` (OpenRefine sends 10 by default). */
export const MAX_QUERIES = 50;

/** More than a service takes in one request (0.2: it MAY answer 413; the CLI says so its own way). */
export class BatchTooLarge extends Error {
  constructor(
    readonly what: string,
    readonly size: number,
    readonly max: number,
  ) {
    super(`at most ${max} ${what} per request; this one has ${size}`);
    this.name = 'BatchTooLarge';
  }
}

/** Whether JSON nests deeper than `max`, checked before any walk (iterative: no stack, any depth). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** The JSON object a client sent in `field`, as text or parsed; anything else is a 422 naming it. */
export function jsonObjectParam(raw: unknown, field: string, maxDepth: number): Record<string, unknown> {
  const refused = (message: string) => invalid(`invalid ${field} request`, { [field]: message });
  if (raw === undefined || raw === null || raw === '') throw refused('required');
  if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) throw refused('must be given once');
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      throw refused('must be a JSON object');
    }
  }
  if (!isPlainObject(value)) throw refused('must be a JSON object');
  if (nestsDeeperThan(value, maxDepth)) throw refused(`must not nest deeper than ${maxDepth} levels`);
  return value;
}

/** A short text from a client, NFKC-normalised with whitespace collapsed, or why it is unusable. */
export function cleanText(
  value: string,
  maxLength: number,
): { ok: true; text: string } | { ok: false; message: string } {
  const text = value.normalize('NFKC').trim().replace(/\s+/g, ' ');
  if ([...text].length > maxLength) return { ok: false, message: `must be at most ${maxLength} characters` };
  if (hasControlChars(text) || /[\u0080-\u009F]/.test(text))
    return { ok: false, message: 'must not contain control characters' };
  return { ok: true, text };
}

/** `key` shortened for a message: a client's key can be any length. */
export const shortKey = (key: string) => (key.length > 40 ? `${key.slice(0, 40)}…` : key);
