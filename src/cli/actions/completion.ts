import type { Command } from 'commander';
import { bashCompletion, zshCompletion } from '../completion.js';
import { writeOut } from '../text-output.js';

export function run(program: Command, shell: 'bash' | 'zsh'): void {
  writeOut(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
}
