// SIP submission (SPEC §4.4): a multipart upload whose file part the pipeline has already
// streamed to a temporary file; the domain checks it, records it and moves it into place.
import { invalid } from '../../errors.js';
import { importSip } from '../../domain/catalog/sips.js';
import type { HandlerMap } from '../types.js';

export const handlers: HandlerMap = {
  'POST /api/sips/import': async (ctx) => {
    const { db, clock, config } = ctx.state.deps;
    const body = ctx.state.body;
    if (body.kind !== 'multipart') {
      throw invalid('a multipart upload is required', { file: 'a multipart upload with a file field is required' });
    }
    const receipt = await importSip({ db, clock }, config.dataDir, body, ctx.state.principal?.tokenId ?? null);
    ctx.status = 202;
    ctx.body = { data: receipt };
  },
};
