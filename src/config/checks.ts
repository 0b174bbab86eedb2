// The kinds of value a configuration key takes. Every check of a kind fails with the same
// message, which names the whole rule (`must be an integer from 0 to 65535`), so one line tells
// the operator what to write.
import { createRequire } from 'node:module';
import type ProxyAddr from 'proxy-addr';
import { v } from '../validation.js';

// proxy-addr reads a list of proxies; loaded only when one is configured, so that the many
// configurations without one (and every CLI run on them) do not pay for loading it.
const proxyAddr = (): typeof ProxyAddr => createRequire(import.meta.url)('proxy-addr') as typeof ProxyAddr;

const NON_EMPTY = 'must be a non-empty string';
export const text = v.pipe(v.string(NON_EMPTY), v.minLength(1, NON_EMPTY));

export const textOrNull = v.nullable(text);

export function int(min: number, max: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message));
}

/** Keys of a group must be known: a misspelt key would otherwise be ignored and its default used. */
export function group<E extends v.ObjectEntries>(entries: E) {
  return v.strictObject(entries, 'must be an object');
}

/**
 * A group whose keys all have defaults: absent, it is all defaults. (The empty default is
 * valid input only because every key is optional; each section passes only such keys.)
 */
export function section<E extends v.ObjectEntries>(entries: E) {
  const schema = group(entries);
  return v.optional(schema, {} as v.InferInput<typeof schema>);
}

/** Which peers may name the client in X-Forwarded-For: none, or the proxies' addresses/ranges. */
export type TrustProxy = false | string[];

// `true` (trust whoever connects) and a hop count (trust as many peers in front as there are
// hops, whoever they are) are refused: with either, a client reaching the daemon directly is
// taken for a proxy and chooses its own address, and with it a fresh failure budget, a way past
// the per-address connection limit and /metrics as a local client. The proxies must be named.
const NAME_THE_PROXIES = 'list the proxies\' addresses or CIDR ranges, such as ["127.0.0.1"] or ["10.0.0.0/8"]';

export const trustProxy = v.pipe(
  v.unknown(),
  v.rawTransform(({ dataset, addIssue, NEVER }): TrustProxy => {
    const value = dataset.value;
    if (value === false) return false;
    if (value === true) {
      addIssue({ message: `must name the proxies, not trust every peer: ${NAME_THE_PROXIES}` });
      return NEVER;
    }
    if (typeof value === 'number') {
      addIssue({
        message: `must name the proxies: a hop count takes any client that connects directly for a proxy; ${NAME_THE_PROXIES}`,
      });
      return NEVER;
    }
    const list = v.safeParse(v.pipe(v.array(text), v.minLength(1)), value);
    if (list.success) {
      try {
        proxyAddr().compile(list.output);
        return list.output;
      } catch (err) {
        addIssue({ message: `has an address or range that cannot be read (${(err as Error).message})` });
        return NEVER;
      }
    }
    addIssue({ message: `must be false or a list of proxy addresses or CIDR ranges: ${NAME_THE_PROXIES}` });
    return NEVER;
  }),
);

const HTTP_URL = 'must be null or an http(s) URL without query or trailing slash, e.g. "https://archive.example.org"';
export const publicUrl = v.nullable(
  v.pipe(
    v.string(HTTP_URL),
    v.regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, HTTP_URL),
    v.check((url) => !url.endsWith('/'), HTTP_URL),
  ),
);

const SLUG = 'must be 1-32 lowercase letters, digits or _';
export const slug = v.pipe(v.string(SLUG), v.regex(/^[a-z0-9][a-z0-9_]{0,31}$/, SLUG));
