// SIP submission (docs/http-api.md): a multipart upload whose file part the pipeline has already
// streamed to a temporary file; the domain checks it, records it and moves it into place.
import { accessRow } from '../../domain/access.js';
import { IDENTIFIER_RE, importSip } from '../../domain/catalog/sips.js';
import { invalid } from '../../errors.js';
import { dataOf, JSON_TYPE, ref, type Route } from '../route.js';
import { setLocation } from './input.js';

/** One name of the comma form: at most 255 characters, no comma or control character. */
const KEYWORD = '[^,\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029]{0,255}';

/** The parts the domain reads (sips.ts): anything else is a 422 `unknown field`. */
const UPLOAD = {
  type: 'object',
  properties: {
    file: { type: 'string', contentMediaType: 'application/zip', description: 'the SIP, a ZIP file' },
    identifier: {
      type: 'string',
      pattern: `${IDENTIFIER_RE.source}|^$`,
      description: 'the new object\'s identifier; absent or "" for a generated one',
    },
    title: { type: 'string', maxLength: 1024 },
    keywords: {
      type: 'string',
      maxLength: 65536,
      // The comma form, each name at most 255 characters on one line; a JSON array is read too.
      pattern: `^(?!\\s*\\[)${KEYWORD}(,${KEYWORD})*$`,
      description: 'names separated by commas (each at most 255 characters), or a JSON array of names',
    },
  },
  required: ['file'],
  additionalProperties: false,
};

export const routes: Route[] = [
  {
    ...accessRow('POST', '/api/sips/import', 'editor', 'sips', { upload: true, scope: 'sips' }),
    summary: 'Submit a SIP (a ZIP file) for ingest',
    query: [],
    body: {
      required: true,
      content: { 'multipart/form-data': UPLOAD },
    },
    answers: {
      202: {
        description: 'The submission, received',
        content: { [JSON_TYPE]: dataOf(ref('Submission')) },
        headers: ['SubmissionLocation'],
      },
      409: 'Conflict',
      422: 'Invalid',
      507: 'NoSpace',
    },
    handler: async (ctx) => {
      const { deps, body } = ctx.state;
      if (body.kind !== 'multipart')
        throw invalid('a multipart upload is required', { file: 'a multipart upload with a file field is required' });
      const { receipt, identifier } = await importSip(
        deps,
        deps.config.dataDir,
        body,
        ctx.state.principal?.tokenId ?? null,
      );
      ctx.status = 202;
      // A submission has no URL; a client follows the accepted work (RFC 9110 §15.3.3) on the objects
      // list narrowed to the object's identifier, where its status moves to `ingested` or `failed`.
      // The identifier is the one just stored, so every 202 has its Location.
      setLocation(ctx, `/api/objects?identifier=${encodeURIComponent(identifier)}`);
      ctx.body = { data: receipt };
    },
  },
];
