// Review finding 9 (flaky 413): an upload over limits.sipUploadBytes sometimes left its
// temporary `upload-<uuid>` file behind: the file could be created after the cleanup had run.
// Whenever an upload is answered, no temporary file of it may exist, now or later.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearer, send, sipForm, storedZip } from '../helpers/api.js';
import { rawExchange, rawRequest } from '../helpers/raw-http.js';
import { sipBody } from '../helpers/upload.js';
import { useDaemonWithConfig } from '../helpers/http.js';

const limited = useDaemonWithConfig({ limits: { sipUploadBytes: 1024 } });

async function dirEntries(name: string): Promise<string[]> {
  try {
    return await readdir(path.join(limited.box.dir, 'data', name));
  } catch {
    return [];
  }
}

describe('uploads over the size limit', () => {
  it('leave no temporary file, answered one by one or many at once (580 uploads)', async () => {
    const big = Buffer.from(storedZip({ 'data.bin': 'x'.repeat(4096) }));
    // Raw HTTP: the daemon answers 413 and closes while the client may still be writing, which
    // fetch reports as a failed request (EPIPE) instead of the answer.
    const upload = async (i: number) => {
      const body = sipBody('cleanupboundary', big, { identifier: `SIP-big-${i}` });
      const outcome = await rawExchange(
        limited.daemon.url,
        rawRequest(
          'POST',
          '/api/sips/import',
          { ...bearer(limited.editor), 'Content-Type': 'multipart/form-data; boundary=cleanupboundary' },
          body,
        ),
        { timeoutMs: 20_000 },
      );
      expect(outcome.kind === 'response' ? outcome.response.status : outcome, `upload ${i}`).toBe(413);
    };
    for (let i = 0; i < 100; i++) {
      await upload(i);
      // Answered means cleaned up: no waiting.
      expect(await dirEntries('tmp'), `after upload ${i}`).toEqual([]);
    }
    for (let batch = 0; batch < 30; batch++) {
      await Promise.all(Array.from({ length: 16 }, (_, i) => upload(1000 + batch * 16 + i)));
      expect(await dirEntries('tmp'), `after batch ${batch}`).toEqual([]);
    }
    // … and nothing appears afterwards either: once a later upload has been taken, the
    // temporary directory is still empty, and sips/ holds that upload only.
    const ok = await send(limited.daemon, '/api/sips/import', {
      method: 'POST',
      body: sipForm({ file: storedZip({ a: 'small' }) }),
      headers: bearer(limited.editor),
    });
    expect(ok.status, ok.text).toBe(202);
    expect(await dirEntries('tmp')).toEqual([]);
    expect(await dirEntries('sips')).toHaveLength(1);
  });
});
