// Values commander hands over as text, each read through a valibot schema whose message is the
// one line the CLI prints: a bad value is refused before the configuration or database is touched.
import { invalid, type AppError } from '../errors.js';
import { ROLES } from '../domain/roles.js';
import { parseDate } from '../domain/dates.js';
import { ALL_SETTING_NAMES, TOKEN_MAX_DAYS_LIMIT } from '../domain/setting-names.js';
import { TOKEN_KINDS, TOKEN_STATUSES } from '../domain/tokens/queries.js';
import { parseInput, summary, v } from '../validation.js';

/** `value` through `schema`; a refusal is `fail(message)`: invalid input (exit 1) unless said otherwise. */
export function parseArg<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  fail: (message: string) => AppError = invalid,
): v.InferOutput<S> {
  return parseInput(schema, value, (errors) => fail(summary(errors)));
}

export const ROLE = v.picklist(ROLES, (issue) => `unknown role "${String(issue.input)}" (one of ${ROLES.join(', ')})`);

export const SETTING_NAME = v.picklist(
  ALL_SETTING_NAMES,
  (issue) => `unknown setting "${String(issue.input)}" (one of ${ALL_SETTING_NAMES.join(', ')})`,
);

export const MAX_DAYS = v.pipe(
  v.string(),
  v.check(
    (text) => text === 'off' || (/^[1-9]\d{0,8}$/.test(text) && Number(text) <= TOKEN_MAX_DAYS_LIMIT),
    (issue) =>
      `token_max_days is a whole number of days from 1 to ${TOKEN_MAX_DAYS_LIMIT}, or "off"; got "${String(issue.input)}"`,
  ),
  v.transform((text) => (text === 'off' ? null : Number(text))),
);

export const SWITCH = v.pipe(
  v.picklist(['on', 'off'], (issue) => `a setting is "on" or "off", got "${String(issue.input)}"`),
  v.transform((value) => value === 'on'),
);

/** A real calendar day `YYYY-MM-DD` (UTC): `2038-02-30` and `tomorrow` are refused. */
export const SINCE = v.pipe(
  v.string(),
  v.check(
    (text) => parseDate(text) !== null,
    (issue) => `--since must be a date YYYY-MM-DD, got "${String(issue.input)}"`,
  ),
);

/** Never quoted in its message: a connection URL may hold a password. */
export const POSTGRES_URL = v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\//, 'the target must be a postgres:// URL'));

/** A whole number from `min` on, given as text (`--limit 20`); the message names the flag. */
export function wholeNumber(flag: string, min: number) {
  return v.pipe(
    v.string(),
    v.regex(/^\d{1,9}$/, (issue) => `${flag} must be a whole number, got "${String(issue.input)}"`),
    v.transform(Number),
    v.minValue(min, `${flag} must be at least ${min}`),
  );
}

const notPort = (issue: v.BaseIssue<unknown>) =>
  `--port must be an integer from 0 to 65535, got "${String(issue.input)}"`;

/** A TCP port, 0 (any free port) to 65535. */
export const PORT = v.pipe(v.string(), v.regex(/^\d{1,5}$/, notPort), v.transform(Number), v.maxValue(65535, notPort));

const oneOf = <T extends string>(flag: string, choices: readonly T[]) =>
  v.picklist(choices, (issue) => `${flag} must be one of ${choices.join(', ')}, got "${String(issue.input)}"`);

export const TOKEN_KIND = oneOf('--kind', TOKEN_KINDS);
export const TOKEN_STATUS = oneOf('--status', TOKEN_STATUSES);
