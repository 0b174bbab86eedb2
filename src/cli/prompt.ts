// Questions at a terminal, asked with @inquirer/prompts on stderr (stdout stays data) from the
// run's stdin; loaded only when something is asked (ask.ts). Ctrl-C ends one (PromptCancelled)
// with status 130, as a shell reports SIGINT; Ctrl-D (end of input) with "cancelled", status 1.
import { emitKeypressEvents } from 'node:readline';
import { Writable } from 'node:stream';
import { confirm, input, password } from '@inquirer/prompts';
import { PromptCancelled } from './cancelled.js';
import { io, type OutStream } from './io.js';

/** Writes through to `output`, which @inquirer/prompts would end once answered, before the command is done. */
function passThrough(output: OutStream): Writable {
  const through = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      output.write(chunk, () => done());
    },
  });
  // How wide the terminal is, for laying out the question.
  return Object.assign(through, { isTTY: output.isTTY, columns: output.columns });
}

async function ask<T>(question: (context: Parameters<typeof input>[1]) => Promise<T>): Promise<T> {
  const { stdin, stderr, signals } = io();
  // A question whose input ends (Ctrl-D on an empty line closes readline) is left open by
  // @inquirer/prompts: Ctrl-D or the end of stdin aborts it here. So does a SIGINT sent to the
  // process (kill -INT): Ctrl-C typed at the question reaches readline as a key, not as a signal.
  const ended = new AbortController();
  let interrupted = false;
  const onKey = (_text: string | undefined, key: { ctrl?: boolean; name?: string } | undefined) => {
    if (key?.ctrl && key.name === 'd') ended.abort();
  };
  const onEnd = () => ended.abort();
  const onSignal = () => {
    interrupted = true;
    ended.abort();
  };
  emitKeypressEvents(stdin);
  stdin.on('keypress', onKey);
  stdin.on('end', onEnd);
  signals.on('SIGINT', onSignal);
  try {
    return await question({ input: stdin, output: passThrough(stderr), signal: ended.signal });
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    if (name === 'ExitPromptError') throw new PromptCancelled(true); // Ctrl-C
    if (name === 'AbortPromptError') throw new PromptCancelled(interrupted);
    throw err;
  } finally {
    stdin.removeListener('keypress', onKey);
    stdin.removeListener('end', onEnd);
    signals.removeListener('SIGINT', onSignal);
  }
}

/** A line typed at the terminal (`hidden`: no echo); `validate`'s refusal shows under the question, which waits. */
export async function prompt(
  message: string,
  opts: { hidden?: boolean; validate?: (answer: string) => Promise<string | true> | string | true } = {},
): Promise<string> {
  const { validate } = opts;
  // A secret is never shown, not even on request (password's Ctrl-T): screens are shared and recorded.
  if (opts.hidden) return ask((context) => password({ message, toggleMask: false, validate }, context));
  // An answer is taken as typed: Tab would otherwise fill in a default, and none is offered.
  return ask((context) => input({ message, validate, theme: { validationFailureMode: 'keep' } }, context));
}

/** Yes or no; the default (Enter) is no. */
export async function yesNo(message: string): Promise<boolean> {
  return ask((context) => confirm({ message, default: false }, context));
}
