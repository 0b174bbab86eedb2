// Who a command acts as, and values that may be asked for in a terminal. Without one nothing is
// asked: a missing --as is a usage error, as scripts must say who they act as.
import os from 'node:os';
import type { Acting } from '../domain/audit.js';
import { usage } from '../errors.js';
import { io } from './io.js';
import { PromptCancelled } from './cancelled.js';

/** prompt.ts (and @inquirer/prompts), loaded when something is asked: most runs (scripts, --as given) ask nothing. */
const questions = () => import('./prompt.js');

export function isInteractive(): boolean {
  const { stdin, stdout } = io();
  return Boolean(stdin.isTTY && stdout.isTTY);
}

export async function resolveActor(flag: string | undefined): Promise<string> {
  const given = optionalActor(flag);
  if (given) return given;
  if (!isInteractive()) {
    throw usage('missing --as <username> (or ARCHIVECTL_AS): the account this action is done as');
  }
  const { prompt } = await questions();
  const answer = (await prompt('Act as which account (--as)?')).trim();
  if (!answer) throw usage('missing --as <username>');
  return answer;
}

export function optionalActor(flag: string | undefined): string | undefined {
  return flag ?? (io().env.ARCHIVECTL_AS || undefined);
}

/**
 * Who acts where an account is optional: --as, else ARCHIVECTL_AS, else the operating-system user
 * as the audit log names it (`os:alice`): the sysadmin bootstrapping the first account, or pruning
 * from cron. Usernames of accounts cannot contain ":", so it never reads as an account.
 */
export function acting(flag: string | undefined): Acting {
  return { account: optionalActor(flag), otherwise: osActor() };
}

function osActor(): string {
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
  return (await questions()).prompt(message);
}

/** A secret typed without echo, when stdin is a terminal; undefined otherwise. */
export async function askSecret(message: string): Promise<string | undefined> {
  if (!io().stdin.isTTY) return undefined;
  return (await questions()).prompt(message, { hidden: true });
}

/** Asks before what cannot be undone (callers: in a terminal, without --yes); "no" cancels. */
export async function confirm(question: string): Promise<void> {
  if (!(await (await questions()).yesNo(question))) throw new PromptCancelled();
}
