// GET /api/token: the token of the request describes itself (src/domain/tokens/self.ts). Its rule
// is "token of any role": the access step answers 401 without a verified token, as on every token
// route; the check below is a safety net.
import { describeSelf } from '../../domain/tokens/self.js';
import { unauthorized } from '../errors.js';
import type { HandlerMap } from '../types.js';

export const handlers: HandlerMap = {
  'GET /api/token': async (ctx) => {
    const principal = ctx.state.principal;
    if (!principal) throw unauthorized('authentication required: send Authorization: Bearer <token>', false);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { data: await describeSelf(ctx.state.deps, principal) };
  },
};
