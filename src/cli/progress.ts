// Progress of long work on one redrawn line of stderr, only when stderr is a terminal; erased when it ends.
import { humanBytes } from './text-output.js';
import { io, type OutStream } from './io.js';

export interface Progress {
  /** `done` of `total` (unknown: a count alone) in `phase`; `unit` bytes shows sizes, else counts. */
  update(phase: string, done: number, total?: number, unit?: 'bytes'): void;
  /** Erases the line (call it in a finally: an error message then starts on a clean line). */
  done(): void;
}

const BAR = 20;
const count = (n: number) => n.toLocaleString('en-US');

/** What is left at the rate so far, once a second has passed (before that it is a guess). */
function remaining(startedAt: number, now: number, done: number, total: number): string {
  const elapsed = now - startedAt;
  if (elapsed < 1000 || done === 0 || done >= total) return '';
  const seconds = Math.ceil(((total - done) * elapsed) / done / 1000);
  return seconds < 90 ? `  about ${seconds} s left` : `  about ${Math.round(seconds / 60)} min left`;
}

/** A progress line on `stream` (the run's stderr), or undefined when it is not a terminal. */
export function progressLine(stream: OutStream = io().stderr): Progress | undefined {
  if (!stream.isTTY) return undefined;
  let lastDraw = 0;
  let shown = false;
  let phaseNow = '';
  let phaseStart = 0;
  return {
    update(phase, done, total, unit) {
      const now = Date.now();
      if (phase !== phaseNow) {
        phaseNow = phase;
        phaseStart = now;
      } else if (done !== total && now - lastDraw < 100) return; // at most ten redraws a second
      lastDraw = now;
      const amount = (n: number) => (unit === 'bytes' ? humanBytes(n) : count(n));
      let line: string;
      if (total === undefined || total <= 0) line = `${phase}: ${amount(done)}`;
      else {
        const part = Math.min(1, done / total);
        const filled = Math.round(part * BAR);
        line =
          `${phase} [${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${String(Math.floor(part * 100)).padStart(3)}%` +
          `  ${amount(done)}/${amount(total)}${remaining(phaseStart, now, done, total)}`;
      }
      // Never wider than the terminal: a wrapped line could not be redrawn in place.
      const columns = Math.max(10, (stream.columns ?? 80) - 1);
      stream.write(`\r${line.length > columns ? line.slice(0, columns) : line}\u001b[K`);
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\u001b[K');
      shown = false;
    },
  };
}
