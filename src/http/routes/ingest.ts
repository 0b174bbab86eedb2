// Ingest callbacks (SPEC §4.4): confirm or fail a received SIP submission.
import { confirmSubmission, failSubmission, parseCallbackBody } from '../../domain/catalog/ingest.js';
import type { HandlerMap } from '../types.js';
import { bodyObject, idParam } from './input.js';

export const handlers: HandlerMap = {
  'POST /api/ingest/confirm/:id': async (ctx) => {
    const { db, clock } = ctx.state.deps;
    const id = idParam(ctx, 'SIP submission');
    parseCallbackBody(bodyObject(ctx), false);
    ctx.status = 200;
    ctx.body = { data: await confirmSubmission({ db, clock }, id) };
  },
  'POST /api/ingest/failed/:id': async (ctx) => {
    const { db, clock } = ctx.state.deps;
    const id = idParam(ctx, 'SIP submission');
    const reason = parseCallbackBody(bodyObject(ctx), true);
    ctx.status = 200;
    ctx.body = { data: await failSubmission({ db, clock }, id, reason) };
  },
};
