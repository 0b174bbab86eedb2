// GET /api/token: the token of the request describes itself (src/domain/tokens/self.ts). Its rule
// is "token of any role": the access step answers 401 without a verified token, as on every token
// route; the check below is a safety net.
import { accessRow } from '../../domain/access.js';
import { describeSelf } from '../../domain/tokens/self.js';
import { unauthorized } from '../errors.js';
import { dataOf, JSON_TYPE, ref, type Route } from '../route.js';

export const routes: Route[] = [
  {
    ...accessRow('GET', '/api/token', 'token', 'token'),
    summary: 'The presented token describes itself (never its value)',
    query: [],
    answers: { 200: { description: 'The token', content: { [JSON_TYPE]: dataOf(ref('Token')) } }, 404: 'NotFound' },
    handler: async (ctx) => {
      const principal = ctx.state.principal;
      if (!principal) throw unauthorized('authentication required: send Authorization: Bearer <token>', false);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { data: await describeSelf(ctx.state.deps, principal) };
    },
  },
];
