// One line typed at a terminal, with node's readline. A secret is typed without echo: readline
// writes what it echoes to its output, which is muted once the prompt is shown. Ctrl-C or
// Ctrl-D end the prompt with PromptCancelled: Ctrl-C exits with status 130, as a shell
// reports a command interrupted by SIGINT; Ctrl-D (end of input) prints "cancelled", status 1.
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { PromptCancelled } from './cancelled.js';
import { io, type OutStream } from './io.js';

export async function prompt(message: string, opts: { output?: OutStream; hidden?: boolean } = {}): Promise<string> {
  const output = opts.output ?? io().stdout;
  let muted = false;
  const shown = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      if (!muted) output.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: io().stdin, output: shown, terminal: Boolean(io().stdin.isTTY) });
  const cancel = new AbortController();
  let interrupted = false;
  rl.on('SIGINT', () => {
    interrupted = true;
    cancel.abort();
  });
  rl.on('close', () => cancel.abort());
  try {
    const answer = rl.question(`${message} `, { signal: cancel.signal });
    muted = Boolean(opts.hidden);
    return await answer;
  } catch (err) {
    if (cancel.signal.aborted) throw new PromptCancelled(interrupted);
    throw err;
  } finally {
    muted = false;
    // The Enter of a hidden answer was not echoed either.
    if (opts.hidden) output.write('\n');
    rl.close();
  }
}
