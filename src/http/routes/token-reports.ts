// POST /api/tokens/revoke: anyone who finds a token's value (a secret scanner, a stranger on a
// forum) reports it, without a token (docs/security.md, "Leaked tokens"). Every live token among
// the values is revoked in every daemon (domain/tokens/report.ts). The answer says nothing of
// what was found: always 202 with the number of values received, never sooner than ANSWER_MS
// after the report was read, so neither its body nor (within that time) its timing tells a
// forger whether a value, or its id, is one of ours. A report is at most REPORT_BYTES (413) and
// MAX_REPORTED_VALUES values (422); reports holding a well-formed value are counted per client
// address (`limits.reportRate`, 429). An Authorization header is judged as on every open route (a refused one is a 401) and
// otherwise ignored: reporting needs no rights.
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../../clock.js';
import { accessRow, REPORT_BYTES } from '../../domain/access.js';
import { isPlainObject } from '../../domain/catalog/fields.js';
import { MAX_REPORTED_VALUES, revokeReported, wellFormed } from '../../domain/tokens/report.js';
import { invalid } from '../../errors.js';
import { parseKnownFields, v } from '../../validation.js';
import { httpError } from '../errors.js';
import { dataOf, JSON_TYPE, type Route } from '../route.js';

/** The least time a report takes to answer, so its time tells nothing; a few KDF runs fit within it. */
export const ANSWER_MS = 500;

/** The daemon's clock; one that also has `sleep` waits with it (tests: no real half second per report). */
type WaitingClock = Clock & { sleep?(ms: number): Promise<void> };

/** No token value is longer (format.ts); a longer string is refused, which says nothing of any token. */
const MAX_VALUE_LENGTH = 256;
const VALUES = `an array of 1 to ${MAX_REPORTED_VALUES} token values (strings)`;

const REPORT = v.object({
  credentials: v.pipe(
    v.array(
      v.pipe(
        v.string('must be a string'),
        v.maxLength(MAX_VALUE_LENGTH, `values are at most ${MAX_VALUE_LENGTH} characters`),
      ),
      `must be ${VALUES}`,
    ),
    v.minLength(1, `must be ${VALUES}`),
    v.maxLength(MAX_REPORTED_VALUES, `must be ${VALUES}`),
  ),
});

// Anyone who finds a token's value reports it, without a token (GitHub's credential revocation):
// 1,000 values of 58 characters, even pretty-printed, fit in REPORT_BYTES.
export const routes: Route[] = [
  {
    ...accessRow('POST', '/api/tokens/revoke', 'open', 'tokens', { bodyBytes: REPORT_BYTES }),
    summary: 'Report leaked token values: every live token among them is revoked at once',
    query: [],
    description:
      'No token needed (an Authorization header is judged as on every route, then ignored). The answer ' +
      'is the same whatever was found, and comes no sooner than half a second after the report: it says ' +
      `nothing about the values. At most ${MAX_REPORTED_VALUES} values and ${REPORT_BYTES} bytes; ` +
      'reports are limited per client address (`limits.reportRate`, 429).',
    body: { required: true, content: { [JSON_TYPE]: REPORT } },
    answers: {
      202: {
        description: 'Received: the number of values, whatever they were',
        content: {
          [JSON_TYPE]: dataOf({
            type: 'object',
            properties: { received: { type: 'integer', minimum: 1, maximum: MAX_REPORTED_VALUES } },
            required: ['received'],
            additionalProperties: false,
          }),
        },
      },
      413: 'TooLarge',
      422: 'Invalid',
      429: 'TooManyRequests',
    },
    handler: async (ctx) => {
      const received = performance.now();
      const { body, reports } = ctx.state;
      if (body.kind !== 'json' && body.kind !== 'none')
        throw httpError(415, 'send the report as JSON: {"credentials": ["arc_…"]}');
      const data = body.kind === 'json' ? body.data : undefined;
      if (!isPlainObject(data))
        throw invalid('the body must be a JSON object: {"credentials": ["arc_…"]}', { body: 'must be a JSON object' });
      const { credentials } = parseKnownFields(REPORT, data, 'report');
      // A report of nothing that could be a token costs nothing, and is not counted.
      const candidates = wellFormed(credentials);
      if (candidates.length > 0) await reports.admit(ctx);
      const revoked = await revokeReported(ctx.state.deps, reports.isLive(ctx.state.client), candidates, ctx.ip);
      for (const token of revoked)
        reports.log.warn(
          { request_id: ctx.state.requestId, token_id: token.selector, account: token.username, ip: ctx.ip },
          'revoked a token reported as leaked',
        );
      const wait = received + ANSWER_MS - performance.now();
      if (wait > 0) await ((ctx.state.deps.clock as WaitingClock).sleep?.(wait) ?? delay(wait));
      ctx.status = 202;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { data: { received: credentials.length } };
    },
  },
];
