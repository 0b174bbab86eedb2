import { allowFromArg, EXPIRES, mustBe, parseArg, rateLimitArg, scopeArg } from '../args.js';
import {
  acting,
  askFor,
  askOptional,
  confirmDestructive,
  isInteractive,
  optionalActor,
  osActor,
  refusals,
  resolveActor,
} from '../ask.js';
import { withDb, type AsFlag, type Globals, type JsonFlag } from '../context.js';
import { note, printJson, restrictionLine, writeOut } from '../output.js';
import { progressLine } from '../progress.js';
import { readInput, readTokenValue } from '../read-input.js';
import { getAccount } from '../../domain/accounts.js';
import { readTokenMaxDays } from '../../domain/settings.js';
import { parse } from '../../domain/tokens/format.js';
import { importLegacy } from '../../domain/tokens/legacy-import.js';
import { expiryUnderPolicy, policyLimit } from '../../domain/tokens/lifetime.js';
import { checkTokenName } from '../../domain/tokens/names.js';
import { assertMayHandOff, assertMayManageTokens, assertMayManageTokensOf } from '../../domain/tokens/policy.js';
import { UNRESTRICTED } from '../../domain/tokens/restrictions.js';
import {
  createToken,
  findTokenByValue,
  handoffToken,
  pruneTokens,
  revokeToken,
  rotateToken,
  updateToken,
  type CreatedToken,
  type RestrictionChange,
} from '../../domain/tokens/service.js';
import type { Ctx } from '../../domain/context.js';
import { usage } from '../../errors.js';

export type RotateFlags = AsFlag & JsonFlag & { expires?: string | false };
/** What narrows a token, as given (`--scope`, `--allow-from`, `--rate-limit`). */
export interface RestrictionFlags {
  scope?: string;
  allowFrom?: string;
  rateLimit?: string;
}
export type CreateFlags = RotateFlags & RestrictionFlags & { name?: string };
export type UpdateFlags = AsFlag & JsonFlag & RestrictionFlags;
export type PruneFlags = AsFlag & JsonFlag & { dryRun?: boolean; yes?: boolean };

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
  if (t.scopes.join() !== '*' || t.allow_from !== null || t.rate_limit !== null)
    note(`Narrowed to ${restrictionLine(t)}.`);
  note('The value above is shown once and cannot be displayed again; store it now.');
}

/** --expires as given: a calendar date no later than the latest expiry (usage error otherwise), or none. */
const givenExpiry = (flag: string | false | undefined): string | null | undefined =>
  flag === false ? null : flag === undefined ? undefined : parseArg(EXPIRES, flag);

/** A given --expires that is already past is a bad value like any other (exit status 2). */
function notPast(expires: string | null | undefined, ctx: Ctx): void {
  const today = ctx.clock.now().toISOString().slice(0, 10);
  if (typeof expires === 'string' && expires < today)
    throw usage(mustBe('--expires', `today (${today} UTC) or later`)({ input: expires }));
}

/** The check of an acting account typed at the question: it exists and may manage tokens. */
const mayManage = (ctx: Ctx, verb: string) =>
  refusals(async (name) => {
    assertMayManageTokens(await getAccount(ctx, name), verb);
  });

/**
 * --expires, else in a terminal a day asked and checked as typed; --no-expires: null; nothing (or an empty
 * answer): undefined, the lifetime policy's end or none.
 */
async function askExpiry(ctx: Ctx, flag: string | false | undefined): Promise<string | null | undefined> {
  if (flag !== undefined || !isInteractive()) return givenExpiry(flag);
  // The question says what an empty answer gives, which the lifetime policy decides.
  const days = await readTokenMaxDays(ctx);
  const last = days === null ? null : policyLimit(days, ctx.clock.now());
  const empty = last ? `at most ${last}; empty: ${last}, as token_max_days is ${days}` : 'empty: never expires';
  const check = refusals(async (typed) => {
    if (typed.trim() === '') return;
    parseArg(EXPIRES, typed.trim());
    await expiryUnderPolicy(ctx, typed.trim());
  });
  const typed = await askOptional(`Last day of validity, YYYY-MM-DD (UTC; ${empty})?`, check);
  return typed === '' ? undefined : typed;
}

/**
 * The restrictions given, checked before the database is opened (a bad value: exit status 2,
 * nothing stored). `lifting`: token update, where `any` and `none` lift a binding or a limit.
 */
function givenRestrictions(opts: RestrictionFlags, lifting: boolean): RestrictionChange {
  return {
    ...(opts.scope === undefined ? {} : { scopes: scopeArg(opts.scope) }),
    ...(opts.allowFrom === undefined ? {} : { allowFrom: allowFromArg(opts.allowFrom, lifting) }),
    ...(opts.rateLimit === undefined ? {} : { rateLimit: rateLimitArg(opts.rateLimit, lifting) }),
  };
}

export async function create(globals: Globals, username: string, opts: CreateFlags): Promise<void> {
  const given = givenExpiry(opts.expires);
  const restrictions = { ...UNRESTRICTED, ...givenRestrictions(opts, false) };
  const created = await withDb(globals(), async (ctx) => {
    // Asked only for an account that exists: each answer is checked against it as it is typed.
    const needsAsking = optionalActor(opts.as) === undefined || opts.name === undefined || opts.expires === undefined;
    const owner = needsAsking && isInteractive() ? await getAccount(ctx, username) : undefined;
    const actor = await resolveActor(
      opts.as,
      owner && refusals(async (name) => assertMayManageTokensOf(await getAccount(ctx, name), owner, 'create')),
    );
    const name = await askFor(
      opts.name,
      '--name <name>',
      'What is the token for (--name)?',
      owner &&
        refusals(async (typed) => {
          const clash = await ctx
            .db('tokens')
            .where({ account_id: owner.id, name: checkTokenName(typed) })
            .whereNull('revoked_at')
            .first<{ id: number } | undefined>('id');
          if (clash) throw usage(`${owner.username} already has a token named "${typed}": names are unique`);
        }),
    );
    notPast(given, ctx);
    const expires = opts.expires === undefined ? await askExpiry(ctx, undefined) : given;
    return createToken(ctx, { username, name, expires, actor, restrictions });
  });
  printCreated(created, opts, 'Created');
}

export async function revoke(globals: Globals, id: string, opts: AsFlag & JsonFlag): Promise<void> {
  // A value where the id goes is a usage error (exit status 2), as in token lookup. Never quoted.
  if (id !== '-' && parse(id)) {
    throw usage(
      'that is a token value, not its id: a value on the command line stays in shell history and shows in ps. ' +
        'Give the 8-character id shown by token list, or pipe the value in: archivectl token revoke -',
    );
  }
  const { token, alreadyRevoked } = await withDb(globals(), async (ctx) => {
    const actor = await resolveActor(opts.as, mayManage(ctx, 'revoke'));
    const value = id === '-' ? await readTokenValue() : undefined;
    return revokeToken(ctx, value === undefined ? id : (await findTokenByValue(ctx, value)).selector, actor);
  });
  if (alreadyRevoked) note(`token ${token.id} was already revoked`);
  if (opts.json) printJson(token);
  else if (!alreadyRevoked) note(`Revoked token ${token.id} "${token.name}" of ${token.account}.`);
}

export async function rotate(globals: Globals, id: string, opts: RotateFlags): Promise<void> {
  const expires = givenExpiry(opts.expires);
  const created = await withDb(globals(), async (ctx) => {
    notPast(expires, ctx);
    return rotateToken(ctx, id, await resolveActor(opts.as, mayManage(ctx, 'rotate')), expires);
  });
  printCreated(created, opts, `Revoked ${id}; created`);
}

export async function update(globals: Globals, id: string, opts: UpdateFlags): Promise<void> {
  const change = givenRestrictions(opts, true);
  if (Object.keys(change).length === 0)
    throw usage('give what to change: --scope, --allow-from and/or --rate-limit (archivectl token update --help)');
  const { token, changed } = await withDb(globals(), async (ctx) =>
    updateToken(ctx, id, await resolveActor(opts.as, mayManage(ctx, 'update')), change),
  );
  if (opts.json) printJson(token);
  else
    note(
      `${changed ? 'Updated' : 'Nothing to change for'} token ${token.id} "${token.name}" of ${token.account}: ${restrictionLine(token)}.`,
    );
}

export async function prune(globals: Globals, opts: PruneFlags): Promise<void> {
  const dryRun = Boolean(opts.dryRun);
  const result = await withDb(globals(), async (ctx) => {
    // A dry run changes nothing: it needs no acting account.
    const by = dryRun
      ? { account: optionalActor(opts.as), otherwise: osActor() }
      : await acting(ctx, opts.as, mayManage(ctx, 'prune'));
    if (!dryRun) {
      await confirmDestructive(opts.yes, async () => {
        const { pruned } = await pruneTokens(ctx, { dryRun: true, by });
        return pruned === 0 ? null : `Delete ${pruned} expired or revoked token(s) for good?`;
      });
    }
    return pruneTokens(ctx, { dryRun, by });
  });
  if (opts.json) printJson(result);
  else note(dryRun ? `${result.pruned} token(s) would be pruned` : `pruned ${result.pruned} token(s)`);
}

export async function handoff(globals: Globals, username: string, opts: AsFlag & JsonFlag): Promise<void> {
  const created = await withDb(globals(), async (ctx) => {
    const check = refusals(async (name) => {
      assertMayHandOff(await getAccount(ctx, name), await getAccount(ctx, username));
    });
    return handoffToken(ctx, username, await resolveActor(opts.as, check));
  });
  printCreated(created, opts, 'Created 12-hour handoff');
}

export async function importLegacyFile(globals: Globals, file: string, opts: AsFlag & JsonFlag): Promise<void> {
  const result = await withDb(globals(), async (ctx) => {
    const actor = await resolveActor(opts.as, mayManage(ctx, 'import'));
    const text = await readInput(file);
    const progress = progressLine();
    try {
      return await importLegacy(ctx, text, {
        actor,
        progress: progress && ((phase, done, total) => progress.update(`${phase} tokens`, done, total)),
      });
    } finally {
      progress?.done();
    }
  });
  if (opts.json) printJson(result);
  else note(`imported ${result.imported} legacy token(s), skipped ${result.skipped} already imported`);
}
