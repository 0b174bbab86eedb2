import type { Command } from 'commander';
import { bashCompletion, zshCompletion } from '../completion.js';
import { readConfig, withConfiguredDatabase, type Globals } from '../context.js';
import { writeOut } from '../text-output.js';

export function run(program: Command, shell: 'bash' | 'zsh'): void {
  writeOut(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
}

/** Only words a shell takes as they are: the scripts hand them to compgen -W, which expands. */
const PLAIN_WORD = /^[A-Za-z0-9._@-]+$/;
/** Enough for any terminal's list; a bigger installation types a few letters first. */
const MOST = 2000;

/** Usernames or active token ids for completion, read only; any failure prints nothing (Tab never shows an error). */
export async function values(globals: Globals, what: string): Promise<void> {
  try {
    const words = await withConfiguredDatabase(readConfig(globals()), {}, async (db) => {
      if (what === 'usernames') return db('accounts').orderBy('username').limit(MOST).pluck('username');
      if (what === 'tokens')
        return db('tokens').whereNull('revoked_at').orderBy('selector').limit(MOST).pluck('selector');
      return [];
    });
    const shown = (words as unknown[]).filter((w): w is string => typeof w === 'string' && PLAIN_WORD.test(w));
    if (shown.length > 0) writeOut(`${shown.join('\n')}\n`);
  } catch {
    // Nothing to offer.
  }
}
