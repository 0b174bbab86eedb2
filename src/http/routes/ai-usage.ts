// AI-cataloging usage records (docs/http-api.md): POST a JSON object or a form, answer 201 {"id"}. No
// Location: a usage record has no URL (the log is write-only over HTTP, as in Anton); the resource
// the POST changed is the log at the request's own URL (RFC 9110 §15.3.2: the target URI).
import { accessRow } from '../../domain/access.js';
import { recordUsage, SCHEMAS } from '../../domain/catalog/ai-usage.js';
import { FORM_TYPE, JSON_TYPE, ref, type Route } from '../route.js';
import { bodyObject } from './input.js';

export const routes: Route[] = [
  {
    ...accessRow('POST', '/api/ai-cataloging/usage', 'editor', 'ai-usage', { scope: 'ai-usage' }),
    summary: 'Record one call a cataloguing tool made to a model',
    query: [],
    description: 'Unknown fields are refused (422 `unknown field`); an optional field given as null or "" is absent.',
    body: { required: true, content: { [JSON_TYPE]: ref('UsageInput'), [FORM_TYPE]: SCHEMAS.form } },
    answers: {
      201: {
        description: 'Recorded (a usage record has no URL)',
        content: {
          [JSON_TYPE]: {
            type: 'object',
            properties: { id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
            required: ['id'],
            additionalProperties: false,
          },
        },
      },
      422: 'Invalid',
    },
    handler: async (ctx) => {
      // Forms carry only strings; the domain coerces them (digits, decimals, true/false/1/0) there only.
      const from = ctx.state.body.kind === 'json' ? 'json' : 'form';
      const id = await recordUsage(ctx.state.deps, bodyObject(ctx), from);
      ctx.status = 201;
      ctx.body = { id };
    },
  },
];
