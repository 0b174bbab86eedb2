import { Argument, type Command } from 'commander';
import { helpText } from '../about.js';

const actions = () => import('../actions/completion.js');

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script (bash or zsh)')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh']))
    .addHelpText(
      'after',
      helpText(`
Examples:
  source <(archivectl completion bash)                           # this shell only
  archivectl completion bash > /etc/bash_completion.d/archivectl  # every bash
  archivectl completion zsh > "\${fpath[1]}/_archivectl"           # zsh`),
    )
    .action(async (shell: 'bash' | 'zsh') => (await actions()).run(program, shell));
}
