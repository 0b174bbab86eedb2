// Who a command acts as, and values asked for only when stdin and stdout are terminals; each answer is checked
// as typed and asked again with the reason.
import os from 'node:os';
import type { Acting } from '../domain/audit.js';
import { forbidden, isAppError, usage } from '../errors.js';
import type { Ctx } from '../domain/context.js';
import { io } from './io.js';
import { PromptCancelled } from './cancelled.js';

/** prompt.ts (and @inquirer/prompts), loaded when something is asked: most runs (scripts, --as given) ask nothing. */
const questions = () => import('./prompt.js');

/** Why an answer is refused (shown under the question), or true. */
export type Check = (answer: string) => Promise<string | true> | string | true;

export function isInteractive(): boolean {
  const { stdin, stdout } = io();
  return Boolean(stdin.isTTY && stdout.isTTY);
}

/** The usage error of a value that is missing and was not asked for, saying why it was not. */
export function notAsked(what: string): Error {
  const { stdin, stdout } = io();
  if (stdin.isTTY && !stdout.isTTY)
    return usage(`missing ${what}: not asked, as the output is captured (stdout is not a terminal); give ${what}`);
  return usage(`missing ${what} (there is no terminal to ask in)`);
}

/** A check from a function that throws the domain's refusals: their message is the reason shown. */
export function refusals(check: (answer: string) => Promise<unknown>): Check {
  return async (answer) => {
    try {
      await check(answer);
      return true;
    } catch (err) {
      if (isAppError(err)) return err.message;
      throw err;
    }
  };
}

/** The check of an acting account typed at the question: it exists and is an admin or superuser. */
export const mayAdminister = (ctx: Ctx, what: string): Check =>
  refusals(async (name) => {
    const { getAccount } = await import('../domain/accounts.js');
    const { atLeast } = await import('../domain/roles.js');
    const account = await getAccount(ctx, name);
    if (!atLeast(account.role, 'admin'))
      throw forbidden(`${account.username} (${account.role}) may not ${what}: only an admin or superuser may`);
  });

const nonEmpty =
  (what: string, check?: Check): Check =>
  (answer) =>
    answer.trim() === '' ? `${what} is needed` : check ? check(answer.trim()) : true;

/**
 * The acting account: --as, else ARCHIVECTL_AS, else asked in a terminal (`check`: the account
 * exists and may act), else a usage error.
 */
export async function resolveActor(flag: string | undefined, check?: Check): Promise<string> {
  const given = optionalActor(flag);
  if (given) return given;
  if (!isInteractive()) throw notAsked('--as <username> (or ARCHIVECTL_AS): the account this action is done as');
  const { prompt } = await questions();
  return (await prompt('Act as which account (--as)?', { validate: nonEmpty('an acting account', check) })).trim();
}

export function optionalActor(flag: string | undefined): string | undefined {
  return flag ?? (io().env.ARCHIVECTL_AS || undefined);
}

/** The OS user as the audit log names it (`os:alice`); usernames cannot hold ":", so it is never an account. */
export function osActor(): string {
  try {
    return `os:${os.userInfo().username}`;
  } catch {
    // No entry in the user database (a container running under an arbitrary uid).
    return `os:uid=${process.getuid?.() ?? 'unknown'}`;
  }
}

/**
 * The acting account of a command that changes something: --as, else ARCHIVECTL_AS, else asked in a terminal;
 * the OS user while the installation has no account at all.
 */
export async function acting(ctx: Ctx, flag: string | undefined, check?: Check): Promise<Acting> {
  const otherwise = osActor();
  if (optionalActor(flag) === undefined && !(await ctx.db('accounts').first('id'))) return { otherwise };
  return { account: await resolveActor(flag, check), otherwise };
}

/** A value that may be asked for in a terminal (never empty); without one, its absence is a usage error. */
export async function askFor(value: string | undefined, flag: string, message: string, check?: Check): Promise<string> {
  if (value !== undefined) return value;
  if (!isInteractive()) throw notAsked(flag);
  return (await (await questions()).prompt(message, { validate: nonEmpty(flag, check) })).trim();
}

/** An answer that may be empty (its meaning is in the question), checked as typed. */
export async function askOptional(message: string, check: Check): Promise<string> {
  return (await (await questions()).prompt(message, { validate: check })).trim();
}

/** A secret typed without echo, when stdin is a terminal; undefined otherwise. */
export async function askSecret(message: string): Promise<string | undefined> {
  if (!io().stdin.isTTY) return undefined;
  return (await questions()).prompt(message, { hidden: true });
}

/**
 * Before what cannot be undone: asks in a terminal (default no), or --yes; without a terminal --yes is needed,
 * so a command run by mistake from cron or a pipe changes nothing (exit status 2).
 */
export async function confirmDestructive(yes: boolean | undefined, question: () => Promise<string | null>) {
  if (yes) return;
  if (!isInteractive()) {
    throw usage(
      io().stdin.isTTY
        ? '--yes required when the output is captured (stdout is not a terminal): nothing was changed'
        : '--yes required when not running interactively: nothing was changed',
    );
  }
  const text = await question();
  if (text !== null && !(await (await questions()).yesNo(text))) throw new PromptCancelled();
}
