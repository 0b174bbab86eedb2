// Ingest callbacks (docs/http-api.md): confirm or fail a received SIP submission.
import { confirmSubmission, failSubmission, parseCallbackBody } from '../../domain/catalog/ingest.js';
import type { HandlerMap } from '../types.js';
import { bodyObject, idParam } from './input.js';

export const handlers: HandlerMap = {
  'POST /api/ingest/confirm/:id': async (ctx) => {
    const id = idParam(ctx, 'SIP submission');
    parseCallbackBody(bodyObject(ctx), false);
    ctx.body = { data: await confirmSubmission(ctx.state.deps, id) };
  },
  'POST /api/ingest/failed/:id': async (ctx) => {
    const id = idParam(ctx, 'SIP submission');
    const reason = parseCallbackBody(bodyObject(ctx), true);
    ctx.body = { data: await failSubmission(ctx.state.deps, id, reason) };
  },
};
