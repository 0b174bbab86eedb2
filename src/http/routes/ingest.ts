// Ingest callbacks (docs/http-api.md): confirm or fail a received SIP submission.
import { accessRow } from '../../domain/access.js';
import { CALLBACK_BODIES, confirmSubmission, failSubmission, parseCallbackBody } from '../../domain/catalog/ingest.js';
import { dataOf, FORM_TYPE, JSON_TYPE, ref, type Route } from '../route.js';
import { bodyObject, idParam } from './input.js';

const callback = (failed: boolean, handler: Route['handler']): Route => {
  const schema = failed ? CALLBACK_BODIES.failed : CALLBACK_BODIES.confirm;
  return {
    ...accessRow('POST', `/api/ingest/${failed ? 'failed' : 'confirm'}/:id`, 'editor', 'ingest', { scope: 'ingest' }),
    summary: failed ? 'Ingest failed: mark a received submission failed' : 'Ingest done: confirm a received submission',
    query: [],
    body: { required: false, content: { [JSON_TYPE]: schema, [FORM_TYPE]: schema } },
    answers: {
      200: { description: 'The submission', content: { [JSON_TYPE]: dataOf(ref('Submission')) } },
      404: 'NotFound',
      409: 'Conflict',
      422: 'Invalid',
    },
    handler,
  };
};

export const routes: Route[] = [
  callback(false, async (ctx) => {
    const id = idParam(ctx, 'SIP submission');
    parseCallbackBody(bodyObject(ctx), false);
    ctx.body = { data: await confirmSubmission(ctx.state.deps, id) };
  }),
  callback(true, async (ctx) => {
    const id = idParam(ctx, 'SIP submission');
    const reason = parseCallbackBody(bodyObject(ctx), true);
    ctx.body = { data: await failSubmission(ctx.state.deps, id, reason) };
  }),
];
