// Values commander hands over as text, read through valibot schemas before configuration or database is
// touched; each refusal is a usage error (exit status 2): `<what> must be <rule>, got "<value>"`.
import { usage, type AppError } from '../errors.js';
import { ROLES } from '../domain/roles.js';
import { parseDate } from '../domain/dates.js';
import { ALL_SETTING_NAMES, TOKEN_MAX_DAYS_LIMIT } from '../domain/setting-names.js';
import { TOKEN_KINDS, TOKEN_STATUSES } from '../domain/tokens/queries.js';
import { LATEST_EXPIRY } from '../domain/tokens/expiry.js';
import { parseAllowFrom } from '../domain/address-blocks.js';
import { EVERY_SCOPE, parseScopes, SCOPES, type Scope } from '../domain/scopes.js';
import { parseRateLimit, RATE_LIMIT_FORM, type RateLimit } from '../rate-limit.js';
import { ANYWHERE } from '../domain/tokens/restrictions.js';
import { parseInput, summary, v } from '../validation.js';

/** `value` through `schema`; a refusal is `fail(message)`: a usage error unless said otherwise. */
export function parseArg<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  fail: (message: string) => AppError = usage,
): v.InferOutput<S> {
  return parseInput(schema, value, (errors) => fail(summary(errors)));
}

/** The one message shape of a refused value. */
export const mustBe = (what: string, rule: string) => (issue: { input: unknown }) =>
  `${what} must be ${rule}, got "${String(issue.input)}"`;

const oneOf = <T extends string>(what: string, choices: readonly T[]) =>
  v.picklist(choices, mustBe(what, `one of ${choices.join(', ')}`));

export const ROLE = oneOf('the role', ROLES);
export const SETTING_NAME = oneOf('the setting', ALL_SETTING_NAMES);

export const MAX_DAYS = v.pipe(
  v.string(),
  v.check(
    (text) => text === 'off' || (/^[1-9]\d{0,8}$/.test(text) && Number(text) <= TOKEN_MAX_DAYS_LIMIT),
    mustBe('token_max_days', `a whole number of days from 1 to ${TOKEN_MAX_DAYS_LIMIT}, or "off"`),
  ),
  v.transform((text) => (text === 'off' ? null : Number(text))),
);

export const SWITCH = v.pipe(
  oneOf('the value', ['on', 'off']),
  v.transform((value) => value === 'on'),
);

/** A real calendar day `YYYY-MM-DD` (UTC): `2038-02-30` and `tomorrow` are refused. */
const calendarDay = (what: string, rule = 'a date YYYY-MM-DD') =>
  v.pipe(
    v.string(),
    v.check((text) => parseDate(text) !== null, mustBe(what, rule)),
  );

export const SINCE = calendarDay('--since');

/** --expires: a calendar day up to the latest expiry; whether it is past is the service's to say. */
export const EXPIRES = v.pipe(
  calendarDay('--expires', 'a calendar date YYYY-MM-DD (UTC)'),
  v.check((text) => text <= LATEST_EXPIRY, mustBe('--expires', `a date up to ${LATEST_EXPIRY}`)),
);

/** Never quoted in its message: a connection URL may hold a password. */
export const POSTGRES_URL = v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\//, 'the target must be a postgres:// URL'));

/** A whole number from `min` on, given as text (`--limit 20`); one message for every bad value. */
export function wholeNumber(flag: string, min: number) {
  const refused = mustBe(flag, `a whole number from ${min} on`);
  return v.pipe(
    v.string(),
    v.check((text) => /^\d{1,9}$/.test(text) && Number(text) >= min, refused),
    v.transform(Number),
  );
}

/** A TCP port, 0 (any free port) to 65535. */
export const PORT = v.pipe(
  v.string(),
  v.check((text) => /^\d{1,5}$/.test(text) && Number(text) <= 65535, mustBe('--port', 'an integer from 0 to 65535')),
  v.transform(Number),
);

export const TOKEN_KIND = oneOf('--kind', TOKEN_KINDS);
export const TOKEN_STATUS = oneOf('--status', TOKEN_STATUSES);

/** Why a flag's value is refused: the rule, the value, and what exactly is wrong with it. */
const refusedValue = (flag: string, rule: string, value: string, problem?: string) =>
  usage(`${mustBe(flag, rule)({ input: value })}${problem ? `: ${problem}` : ''}`);

/** --scope: `read,ai-usage`; `*` for every right of the account (null). */
export function scopeArg(text: string): Scope[] | null {
  const read = parseScopes(text);
  if ('scopes' in read) return read.scopes;
  const rule = `a comma-separated list of the scopes ${SCOPES.join(', ')} (or ${EVERY_SCOPE} for every right)`;
  throw refusedValue('--scope', rule, text, read.problem);
}

/** --allow-from: CIDR blocks or addresses, comma-separated; `any` (where allowed) lifts the binding (null). */
export function allowFromArg(text: string, anyAllowed: boolean): string[] | null {
  if (anyAllowed && text === ANYWHERE) return null;
  const read = parseAllowFrom(text);
  if ('allowFrom' in read) return read.allowFrom;
  const rule = `comma-separated IPv4 or IPv6 CIDR blocks or addresses, e.g. 10.0.0.0/8,2001:db8::/32${anyAllowed ? ` (or ${ANYWHERE})` : ''}`;
  throw refusedValue('--allow-from', rule, text, read.problem);
}

/** --rate-limit: `600/hour`; `none` (where allowed) lifts the token's own limit (null). */
export function rateLimitArg(text: string, noneAllowed: boolean): RateLimit | null {
  if (noneAllowed && text === 'none') return null;
  const rate = parseRateLimit(text);
  if (rate) return rate;
  throw usage(`--rate-limit: ${RATE_LIMIT_FORM}${noneAllowed ? ' (or none)' : ''}, got "${text}"`);
}
