// What archivectl completion does (its arguments and help are in ../commands/completion.ts).
// Loaded only when it runs.
import type { Command } from 'commander';
import { bashCompletion, zshCompletion } from '../completion.js';
import { writeOut } from '../text-output.js';

export function run(program: Command, shell: 'bash' | 'zsh'): void {
  writeOut(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
}
