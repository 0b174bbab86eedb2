// GET /api/token: the token of the request describes itself (src/domain/tokens/self.ts). Its rule
// is "token of any role": the access step answers 401 without a verified token, as on every token
// route; the check below is a safety net.
import { accessRow } from '../../domain/access.js';
import { describeSelf } from '../../domain/tokens/self.js';
import { unauthorized } from '../errors.js';
import { ROLES } from '../../domain/roles.js';
import { EVERY_SCOPE, SCOPES } from '../../domain/scopes.js';
import { TOKEN_KINDS } from '../../domain/tokens/queries.js';
import { RATE_LIMIT_PATTERN } from '../../rate-limit.js';
import { closed, dataOf, JSON_TYPE, type Route } from '../route.js';

/** What describeSelf answers. */
const TOKEN = closed({
  id: { type: 'string', description: "the token's public id (never its value)" },
  name: { type: 'string' },
  kind: { enum: [...TOKEN_KINDS], type: 'string' },
  account: { type: 'string' },
  role: { enum: [...ROLES], type: 'string', description: "the account's role as of this request" },
  created: { type: 'string', format: 'date-time' },
  expires: { type: ['string', 'null'], format: 'date', description: 'the last day (UTC) it is accepted' },
  last_used: { type: ['string', 'null'], format: 'date-time' },
  scopes: {
    type: 'array',
    items: { enum: [...SCOPES, EVERY_SCOPE], type: 'string' },
    minItems: 1,
    description: 'the scopes its rights are narrowed to; `["*"]`: every right of its account',
  },
  allow_from: {
    type: ['array', 'null'],
    items: { type: 'string' },
    description: 'the CIDR blocks it is accepted from; null: from anywhere',
  },
  rate_limit: {
    type: ['string', 'null'],
    pattern: RATE_LIMIT_PATTERN.source,
    description: 'its own request rate (`N/minute` or `N/hour`); null: none of its own',
  },
});

export const routes: Route[] = [
  {
    ...accessRow('GET', '/api/token', 'token', 'token'),
    summary: 'The presented token describes itself (never its value)',
    query: [],
    answers: { 200: { description: 'The token', content: { [JSON_TYPE]: dataOf(TOKEN) } }, 404: 'NotFound' },
    handler: async (ctx) => {
      const principal = ctx.state.principal;
      if (!principal) throw unauthorized('authentication required: send Authorization: Bearer <token>', false);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { data: await describeSelf(ctx.state.deps, principal) };
    },
  },
];
