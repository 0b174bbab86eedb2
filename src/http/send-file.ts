// Large answers (TEI exports, BEACON dumps) sent from files with backpressure; an answer its client holds back
// for `timeouts.sendMs` without taking SEND_PROGRESS_BYTES is cut.
import type { FileHandle } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import type { ApiContext } from './types.js';

/** What an answer must move within `sendMs` (a read-ahead buffer's worth). */
const SEND_PROGRESS_BYTES = 64 * 1024;

function cutWhenStalled(res: ServerResponse, sent: () => number, sendMs: number): void {
  let mark = { at: performance.now(), bytes: sent() };
  const timer = setInterval(
    () => {
      const now = performance.now();
      const bytes = sent();
      if (bytes - mark.bytes >= SEND_PROGRESS_BYTES || res.socket?.writableNeedDrain !== true) {
        mark = { at: now, bytes };
      } else if (now - mark.at >= sendMs) {
        res.destroy();
      }
    },
    Math.max(50, Math.min(1000, Math.floor(sendMs / 4))),
  );
  timer.unref();
  res.once('close', () => clearInterval(timer));
}

/** Answers 200 with an open file (closed however the answer ends), its length and type; a HEAD too. */
export async function sendFile(ctx: ApiContext, handle: FileHandle, contentType: string): Promise<void> {
  const { size } = await handle.stat().catch(async (err: unknown) => {
    await handle.close();
    throw err;
  });
  const stream = handle.createReadStream();
  ctx.status = 200;
  ctx.body = stream;
  // After the body: a stream body would otherwise be application/octet-stream.
  ctx.set('Content-Type', contentType);
  ctx.length = size;
  if (ctx.method !== 'HEAD') cutWhenStalled(ctx.res, () => stream.bytesRead, ctx.state.deps.config.timeouts.sendMs);
}
