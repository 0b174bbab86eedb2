// SIP submission (docs/http-api.md): a multipart upload whose file part the pipeline has already
// streamed to a temporary file; the domain checks it, records it and moves it into place.
import { invalid } from '../../errors.js';
import { importSip } from '../../domain/catalog/sips.js';
import type { HandlerMap } from '../types.js';
import { setLocation } from './input.js';

export const handlers: HandlerMap = {
  'POST /api/sips/import': async (ctx) => {
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
};
