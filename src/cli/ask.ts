// The acting account for token commands: --as, else ARCHIVECTL_AS, else asked in a terminal.
// Without a terminal a missing --as is a usage error: scripts must say who they act as.
import { usage } from '../errors.js';

export function isInteractive(): boolean {
  return Boolean(process.stdin.isTTY && process.stdout.isTTY);
}

export async function resolveActor(flag: string | undefined): Promise<string> {
  const given = flag ?? process.env.ARCHIVECTL_AS;
  if (given) return given;
  if (!isInteractive()) {
    throw usage('missing --as <username> (or ARCHIVECTL_AS): the account this action is done as');
  }
  const { input } = await import('@inquirer/prompts');
  const answer = (await input({ message: 'Act as which account (--as)?' })).trim();
  if (!answer) throw usage('missing --as <username>');
  return answer;
}

/** The acting account when one is optional (listing, pruning, importing, handoff). */
export function optionalActor(flag: string | undefined): string | undefined {
  return flag ?? (process.env.ARCHIVECTL_AS || undefined);
}

/** A value that may be asked for in a terminal; without one, its absence is a usage error. */
export async function askFor(value: string | undefined, flag: string, message: string): Promise<string> {
  if (value !== undefined) return value;
  if (!isInteractive()) throw usage(`missing ${flag}`);
  const { input } = await import('@inquirer/prompts');
  return input({ message });
}
