// AI-cataloging usage records (docs/http-api.md): POST a JSON object or a form, answer 201 {"id"}. No
// Location: a usage record has no URL (the log is write-only over HTTP, as in Anton); the resource
// the POST changed is the log at the request's own URL (RFC 9110 §15.3.2: the target URI).
import { recordUsage } from '../../domain/catalog/ai-usage.js';
import type { HandlerMap } from '../types.js';
import { bodyObject } from './input.js';

export const handlers: HandlerMap = {
  'POST /api/ai-cataloging/usage': async (ctx) => {
    // Forms carry only strings; the domain coerces them (digits, decimals, true/false/1/0) there only.
    const from = ctx.state.body.kind === 'json' ? 'json' : 'form';
    const id = await recordUsage(ctx.state.deps, bodyObject(ctx), from);
    ctx.status = 201;
    ctx.body = { id };
  },
};
