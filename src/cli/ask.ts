// Who a command acts as, and values that may be asked for in a terminal.
// The acting account: --as, else ARCHIVECTL_AS, else asked in a terminal. Without a terminal a
// missing --as is a usage error: scripts must say who they act as.
import os from 'node:os';
import { usage } from '../errors.js';
import { io } from './io.js';
import { PromptCancelled } from './cancelled.js';
import type { prompt as Prompt } from './prompt.js';

/** prompt.ts, loaded when something is asked: most runs (scripts, --as given) ask nothing. */
async function prompt(...args: Parameters<typeof Prompt>): Promise<string> {
  return (await import('./prompt.js')).prompt(...args);
}

export function isInteractive(): boolean {
  const { stdin, stdout } = io();
  return Boolean(stdin.isTTY && stdout.isTTY);
}

export async function resolveActor(flag: string | undefined): Promise<string> {
  const given = flag ?? (io().env.ARCHIVECTL_AS || undefined);
  if (given) return given;
  if (!isInteractive()) {
    throw usage('missing --as <username> (or ARCHIVECTL_AS): the account this action is done as');
  }
  const answer = (await prompt('Act as which account (--as)?')).trim();
  if (!answer) throw usage('missing --as <username>');
  return answer;
}

/** The acting account when one is optional (listing, pruning, account commands). */
export function optionalActor(flag: string | undefined): string | undefined {
  return flag ?? (io().env.ARCHIVECTL_AS || undefined);
}

/**
 * The operating-system user running the CLI, as the audit log names it when no account acts
 * (`os:alice`): the sysadmin bootstrapping the first account, or pruning from cron. Usernames
 * of accounts cannot contain ":", so it never reads as an account.
 */
export function osActor(): string {
  try {
    return `os:${os.userInfo().username}`;
  } catch {
    // No entry in the user database (a container running under an arbitrary uid).
    return `os:uid=${process.getuid?.() ?? 'unknown'}`;
  }
}

/** A value that may be asked for in a terminal; without one, its absence is a usage error. */
export async function askFor(value: string | undefined, flag: string, message: string): Promise<string> {
  if (value !== undefined) return value;
  if (!isInteractive()) throw usage(`missing ${flag}`);
  return prompt(message);
}

/**
 * A secret typed without echo, when stdin is a terminal (the prompt goes to stderr, so that
 * stdout stays data); undefined otherwise.
 */
export async function askSecret(message: string): Promise<string | undefined> {
  if (!io().stdin.isTTY) return undefined;
  return prompt(message, { output: io().stderr, hidden: true });
}

/**
 * Asks before something that cannot be undone, in a terminal only (on stderr, so stdout stays
 * data); a "no" ends the command with "cancelled" (PromptCancelled). `--yes`, or no terminal
 * (scripts, cron), goes ahead without asking, as before prompts existed.
 */
export async function confirm(question: string, yes: boolean | undefined): Promise<void> {
  if (yes || !isInteractive()) return;
  const answer = (await prompt(`${question} [y/N]`, { output: io().stderr })).trim().toLowerCase();
  if (answer !== 'y' && answer !== 'yes') throw new PromptCancelled();
}
