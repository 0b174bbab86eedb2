// The kinds of value a configuration key takes. A kind's checks all fail with one message naming
// the whole rule (`must be an integer from 0 to 65535`): one line tells the operator what to write.
import { createRequire } from 'node:module';
import type ProxyAddr from 'proxy-addr';
import { v } from '../validation.js';
import { parseRateLimit, RATE_LIMIT_FORM, type RateLimit } from '../rate-limit.js';

// proxy-addr, loaded only once proxies are configured: most configurations and CLI runs have none.
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

/** A group whose keys all have defaults (so that `{}` is valid): absent, it is all defaults. */
export function section<E extends v.ObjectEntries>(entries: E) {
  const schema = group(entries);
  return v.optional(schema, {} as v.InferInput<typeof schema>);
}

/** Which peers may name the client in X-Forwarded-For: none, or the proxies' addresses/ranges. */
export type TrustProxy = false | string[];

// `true` and a hop count are refused: with either, a client reaching the daemon directly is taken
// for a proxy and chooses its own address (and what comes with it: README, Security notes).
const NAME_THE_PROXIES = 'list the proxies\' addresses or CIDR ranges, such as ["127.0.0.1"] or ["10.0.0.0/8"]';

export const trustProxy = v.pipe(
  v.unknown(),
  v.rawTransform(({ dataset: { value }, addIssue, NEVER }): TrustProxy => {
    const refuse = (message: string) => {
      addIssue({ message });
      return NEVER;
    };
    if (value === false) return false;
    if (value === true) return refuse(`must name the proxies, not trust every peer: ${NAME_THE_PROXIES}`);
    if (typeof value === 'number')
      return refuse(
        `must name the proxies: a hop count takes any client that connects directly for a proxy; ${NAME_THE_PROXIES}`,
      );
    const list = v.safeParse(v.pipe(v.array(text), v.minLength(1)), value);
    if (!list.success) return refuse(`must be false or a list of proxy addresses or CIDR ranges: ${NAME_THE_PROXIES}`);
    try {
      proxyAddr().compile(list.output);
      return list.output;
    } catch (err) {
      return refuse(`has an address or range that cannot be read (${(err as Error).message})`);
    }
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

/** A request rate (`600/hour`), read by rate-limit.ts as a token's `--rate-limit` is. */
function rateOf(orNull: boolean) {
  const message = `must be ${orNull ? 'null (no limit) or ' : ''}a rate: ${RATE_LIMIT_FORM}`;
  return v.pipe(
    v.unknown(),
    v.rawTransform(({ dataset: { value }, addIssue, NEVER }): RateLimit | null => {
      if (orNull && value === null) return null;
      const parsed = typeof value === 'string' ? parseRateLimit(value) : null;
      if (parsed) return parsed;
      addIssue({ message });
      return NEVER;
    }),
  );
}

export const rate = v.pipe(
  rateOf(false),
  v.transform((r) => r as RateLimit),
);
export const rateOrNull = rateOf(true);
