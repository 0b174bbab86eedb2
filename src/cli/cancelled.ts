// The end of a prompt without an answer. In a module of its own so that main.ts can tell it
// apart without loading @inquirer/prompts (prompt.ts) on every run, `--help` included.
export class PromptCancelled extends Error {
  /** `interrupted`: by Ctrl-C (SIGINT), not by the end of input or a "no". */
  constructor(readonly interrupted = false) {
    super('cancelled');
    this.name = 'PromptCancelled';
  }
}
