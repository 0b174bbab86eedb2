import { parseArg, TOKEN_KIND, TOKEN_STATUS, wholeNumber } from '../args.js';
import { acting, askFor, confirm, isInteractive, optionalActor, resolveActor } from '../ask.js';
import { withDb, type AsFlag, type Globals, type JsonFlag } from '../context.js';
import { humanTime, note, printJson, printTable, printTokens, tokenName, writeOut } from '../output.js';
import type { CreatedToken } from '../../domain/tokens/service.js';
import { usage } from '../../errors.js';
import type { v } from '../../validation.js';

export type RotateFlags = AsFlag & JsonFlag & { expires?: string | false };
export type CreateFlags = RotateFlags & { name?: string };
export type PruneFlags = AsFlag & JsonFlag & { dryRun?: boolean; yes?: boolean };

export interface ListFlags extends AsFlag, JsonFlag {
  all?: boolean;
  account?: string;
  status?: string;
  expiringWithin?: string;
  kind?: string;
  unusedFor?: string;
  limit?: string;
}

/** The value alone on stdout (so `TOKEN=$(archivectl token create …)` works); the rest on stderr. */
function printCreated(created: CreatedToken, opts: JsonFlag, what: string): void {
  // With the lifetime policy's days when the policy chose the end (settings token_max_days).
  const policy = created.policyDays === undefined ? {} : { token_max_days: created.policyDays };
  if (opts.json) {
    printJson({ ...created.token, token: created.value, ...policy });
    return;
  }
  writeOut(`${created.value}\n`);
  const t = created.token;
  note(`${what} token ${t.id} "${t.name}" for ${t.account}${t.expires ? `, expires ${t.expires}` : ''}.`);
  if (created.policyDays !== undefined)
    note(`It ends ${created.policyDays} days from today: token_max_days is ${created.policyDays}.`);
  note('The value above is shown once and cannot be displayed again; store it now.');
}

/**
 * --expires, else (in a terminal) the last day typed at a prompt; --no-expires: no end (null);
 * nothing (or an empty answer): the lifetime policy's end, or none while it is off.
 */
async function askExpiry(globals: Globals, flag: string | false | undefined): Promise<string | null | undefined> {
  if (flag === false) return null;
  if (flag !== undefined || !isInteractive()) return flag;
  // The question says what an empty answer gives, which the lifetime policy decides.
  const { readTokenMaxDays } = await import('../../domain/settings.js');
  const { policyLimit } = await import('../../domain/tokens/lifetime.js');
  const limit = await withDb(globals(), async (ctx) => {
    const days = await readTokenMaxDays(ctx);
    return days === null ? null : { days, last: policyLimit(days, ctx.clock.now()) };
  });
  const empty = limit
    ? `at most ${limit.last}; empty: ${limit.last}, as token_max_days is ${limit.days}`
    : 'empty: never expires';
  const { prompt } = await import('../prompt.js');
  const typed = (await prompt(`Last day of validity, YYYY-MM-DD (UTC; ${empty})?`)).trim();
  return typed === '' ? undefined : typed;
}

const parseFilter = <S extends v.GenericSchema>(schema: S, value: string | undefined) =>
  value === undefined ? undefined : parseArg(schema, value, usage);

const daysBefore = (at: Date, days: number) => new Date(at.getTime() - days * 86_400_000);

export async function create(globals: Globals, username: string, opts: CreateFlags): Promise<void> {
  const actor = await resolveActor(opts.as);
  const name = await askFor(opts.name, '--name <name>', 'What is the token for (--name)?');
  const expires = await askExpiry(globals, opts.expires);
  const { createToken } = await import('../../domain/tokens/service.js');
  const created = await withDb(globals(), (ctx) => createToken(ctx, { username, name, expires, actor }));
  printCreated(created, opts, 'Created');
}

export async function list(globals: Globals, argument: string | undefined, opts: ListFlags): Promise<void> {
  if (argument !== undefined && opts.account !== undefined && argument !== opts.account) {
    throw usage(`give the account once: either as the argument or as --account`);
  }
  // The filters are checked before the database is opened (a bad one is a usage error).
  const filter = {
    username: argument ?? opts.account,
    all: Boolean(opts.all),
    status: parseFilter(TOKEN_STATUS, opts.status),
    expiringWithinDays: parseFilter(wholeNumber('--expiring-within', 0), opts.expiringWithin),
    kind: parseFilter(TOKEN_KIND, opts.kind),
    unusedForDays: parseFilter(wholeNumber('--unused-for', 1), opts.unusedFor),
    limit: parseFilter(wholeNumber('--limit', 1), opts.limit),
  };
  const { listTokensAs } = await import('../../domain/tokens/listing.js');
  const tokens = await withDb(globals(), (ctx) =>
    listTokensAs(ctx, {
      ...filter,
      expiringBefore:
        filter.expiringWithinDays === undefined ? undefined : daysBefore(ctx.clock.now(), -filter.expiringWithinDays),
      unusedSince: filter.unusedForDays === undefined ? undefined : daysBefore(ctx.clock.now(), filter.unusedForDays),
      actor: optionalActor(opts.as),
    }),
  );
  if (opts.json) printJson(tokens);
  else await printTokens(tokens);
}

export async function revoke(globals: Globals, id: string, opts: AsFlag & JsonFlag): Promise<void> {
  // A value where the id goes is a usage error (exit status 2), as in token lookup. Never quoted.
  if (id !== '-' && (await import('../../domain/tokens/format.js')).parse(id)) {
    throw usage(
      'that is a token value, not its id: a value on the command line stays in shell history and shows in ps. ' +
        'Give the 8-character id shown by token list, or pipe the value in: archivectl token revoke -',
    );
  }
  const actor = await resolveActor(opts.as);
  const value = id === '-' ? await (await import('../read-input.js')).readTokenValue() : undefined;
  const { findTokenByValue, revokeToken } = await import('../../domain/tokens/service.js');
  const { token, alreadyRevoked } = await withDb(globals(), async (ctx) =>
    revokeToken(ctx, value === undefined ? id : (await findTokenByValue(ctx, value)).selector, actor),
  );
  if (alreadyRevoked) note(`token ${token.id} was already revoked`);
  if (opts.json) printJson(token);
  else if (!alreadyRevoked) note(`Revoked token ${token.id} "${token.name}" of ${token.account}.`);
}

export async function lookup(globals: Globals, argument: string, opts: AsFlag & JsonFlag): Promise<void> {
  if (argument !== '-') {
    // Never quoted: it may be the value itself.
    throw usage('give "-" and the value on stdin: a value on the command line stays in shell history and ps');
  }
  const { readTokenValue } = await import('../read-input.js');
  const value = await readTokenValue();
  const { lookupTokenAs } = await import('../../domain/tokens/listing.js');
  const found = await withDb(globals(), (ctx) => lookupTokenAs(ctx, value, optionalActor(opts.as)));
  if (opts.json) printJson(found);
  else await printTokens([found]);
}

export async function rotate(globals: Globals, id: string, opts: RotateFlags): Promise<void> {
  const actor = await resolveActor(opts.as);
  const expires = opts.expires === false ? null : opts.expires;
  const { rotateToken } = await import('../../domain/tokens/service.js');
  const created = await withDb(globals(), (ctx) => rotateToken(ctx, id, actor, expires));
  printCreated(created, opts, `Revoked ${id}; created`);
}

export async function show(globals: Globals, id: string, opts: AsFlag & JsonFlag): Promise<void> {
  const { showTokenAs } = await import('../../domain/tokens/listing.js');
  const token = await withDb(globals(), (ctx) => showTokenAs(ctx, id, optionalActor(opts.as)));
  if (opts.json) {
    printJson(token);
    return;
  }
  await printTable(
    ['Field', 'Value'],
    [
      ['ID', token.id],
      ['Account', token.account],
      ['Name', tokenName(token)],
      ['Kind', token.kind],
      ['Status', token.status],
      ['Created', humanTime(token.created)],
      ['Last used', humanTime(token.last_used)],
      ['Last used from', token.last_used_from ?? 'never'],
      ['Expires', token.expires ?? 'never'],
    ],
  );
  if (token.addresses.length === 0) {
    note('no use from any address recorded');
    return;
  }
  writeOut('\n');
  await printTable(
    ['Used from', 'First seen', 'Last seen'],
    token.addresses.map((a) => [a.address, humanTime(a.first_seen), humanTime(a.last_seen)]),
  );
}

export async function prune(globals: Globals, opts: PruneFlags): Promise<void> {
  const { pruneTokens } = await import('../../domain/tokens/service.js');
  const dryRun = Boolean(opts.dryRun);
  const by = acting(opts.as);
  const result = await withDb(globals(), async (ctx) => {
    if (!dryRun && !opts.yes && isInteractive()) {
      const { pruned } = await pruneTokens(ctx, { dryRun: true, by });
      if (pruned === 0) return { pruned };
      await confirm(`Delete ${pruned} expired or revoked token(s) for good?`);
    }
    return pruneTokens(ctx, { dryRun, by });
  });
  if (opts.json) printJson(result);
  else note(dryRun ? `${result.pruned} token(s) would be pruned` : `pruned ${result.pruned} token(s)`);
}

export async function handoff(globals: Globals, username: string, opts: AsFlag & JsonFlag): Promise<void> {
  const actor = await resolveActor(opts.as);
  const { handoffToken } = await import('../../domain/tokens/service.js');
  const created = await withDb(globals(), (ctx) => handoffToken(ctx, username, actor));
  printCreated(created, opts, 'Created 12-hour handoff');
}

export async function importLegacyFile(globals: Globals, file: string, opts: AsFlag & JsonFlag): Promise<void> {
  const actor = await resolveActor(opts.as);
  const { readInput } = await import('../read-input.js');
  const text = await readInput(file);
  const { importLegacy } = await import('../../domain/tokens/legacy-import.js');
  const progress = (await import('../progress.js')).progressBar();
  const result = await withDb(globals(), (ctx) =>
    importLegacy(ctx, text, { actor, progress: progress && ((...at) => progress.update(...at)) }),
  ).finally(() => progress?.done());
  if (opts.json) printJson(result);
  else note(`imported ${result.imported} legacy token(s), skipped ${result.skipped} already imported`);
}
