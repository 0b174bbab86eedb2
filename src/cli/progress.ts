// A one-line progress display on stderr, only when stderr is a terminal (never in logs or CI).
import { io, type OutStream } from './io.js';

export function progressBar(stream: OutStream = io().stderr) {
  if (!stream.isTTY) return undefined;
  let last = 0;
  let shown = false;
  return {
    update(phase: string, done: number, total: number) {
      const now = Date.now();
      if (done !== total && now - last < 100) return; // at most ten redraws a second
      last = now;
      shown = true;
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      stream.write(`\r${phase} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}\u001b[K`);
    },
    done() {
      if (shown) stream.write('\n');
      shown = false;
    },
  };
}
