import { Argument, type Command } from 'commander';
import { helpText } from '../about.js';
import type { Globals } from '../context.js';

const actions = () => import('../actions/completion.js');

export function registerCompletion(program: Command, globals: Globals): void {
  program
    .command('completion')
    .description('print a shell completion script (bash or zsh)')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh']))
    .addHelpText(
      'after',
      helpText(`
Commands, options and their values complete: roles, setting names, --status and --kind, and usernames and token ids, which are read from the database (the one --config names) when Tab is pressed.

Examples:
  source <(archivectl completion bash)                           # this shell only
  archivectl completion bash > /etc/bash_completion.d/archivectl  # every bash
  archivectl completion zsh > "\${fpath[1]}/_archivectl"           # zsh`),
    )
    .action(async (shell: 'bash' | 'zsh') => (await actions()).run(program, shell));

  // What the completion scripts run at Tab: usernames or active token ids, one per line; nothing
  // (and status 0) when there is no database to read. Not listed in --help.
  program
    .command('__values <what>', { hidden: true })
    .action(async (what: string) => (await actions()).values(globals, what));
}
