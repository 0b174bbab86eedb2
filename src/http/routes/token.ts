// GET /api/token: the token of the request describes itself (src/domain/tokens/self.ts). Its
// rule is "token of any role": without a token, or with a refused one, it answers 401 as every
// token route does; the Token-Expiration header rides on the answer like on any other.
import { describeSelf } from '../../domain/tokens/self.js';
import { unauthorized } from '../errors.js';
import type { HandlerMap } from '../types.js';

export const handlers: HandlerMap = {
  'GET /api/token': async (ctx) => {
    const principal = ctx.state.principal;
    // The access rule let the request through only with a verified token.
    if (!principal) throw unauthorized('authentication required: send Authorization: Bearer <token>', false);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { data: await describeSelf(ctx.state.deps, principal) };
  },
};
