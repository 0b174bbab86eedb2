import type { Command } from 'commander';
import { parseArg, TOKEN_STATUS, wholeNumber } from '../args.js';
import { prompt } from '../prompt.js';
import { askFor, confirm, isInteractive, optionalActor, osActor, resolveActor } from '../ask.js';
import { withDb, type GlobalOptions } from '../context.js';
import { note, printJson, printTokens, writeOut } from '../output.js';
import type { CreatedToken } from '../../domain/tokens/service.js';
import { TOKEN_STATUSES } from '../../domain/tokens/queries.js';
import { usage } from '../../errors.js';

interface JsonFlag {
  json?: boolean;
}

/** The value alone on stdout (so `TOKEN=$(archivectl token create …)` works); the rest on stderr. */
function printCreated(created: CreatedToken, opts: JsonFlag, what: string): void {
  if (opts.json) {
    printJson({ ...created.token, token: created.value });
    return;
  }
  writeOut(`${created.value}\n`);
  const t = created.token;
  note(`${what} token ${t.id} "${t.name}" for ${t.account}${t.expires ? `, expires ${t.expires}` : ''}.`);
  note('The value above is shown once and cannot be displayed again; store it now.');
}

/** --expires, else (in a terminal) the last day typed at a prompt; empty or --no-expires: never. */
async function askExpiry(flag: string | false | undefined): Promise<string | undefined> {
  if (flag === false) return undefined;
  if (flag !== undefined || !isInteractive()) return flag;
  const typed = (await prompt('Last day of validity, YYYY-MM-DD (UTC; empty: never expires)?')).trim();
  return typed === '' ? undefined : typed;
}

interface ListFlags extends JsonFlag {
  all?: boolean;
  account?: string;
  status?: string;
  expiringWithin?: string;
  limit?: string;
  as?: string;
}

/** The filters of token list, checked before the database is opened (a bad one is a usage error). */
function listFilter(argument: string | undefined, opts: ListFlags) {
  if (argument !== undefined && opts.account !== undefined && argument !== opts.account) {
    throw usage(`give the account once: either as the argument or as --account`);
  }
  return {
    username: argument ?? opts.account,
    all: Boolean(opts.all),
    status: opts.status === undefined ? undefined : parseArg(TOKEN_STATUS, opts.status, usage),
    expiringWithinDays:
      opts.expiringWithin === undefined
        ? undefined
        : parseArg(wholeNumber('--expiring-within', 0), opts.expiringWithin, usage),
    limit: opts.limit === undefined ? undefined : parseArg(wholeNumber('--limit', 1), opts.limit, usage),
  };
}

export function registerToken(program: Command, globals: () => GlobalOptions): void {
  const token = program
    .command('token')
    .description('create, list, revoke and rotate API tokens')
    .addHelpText(
      'after',
      `
The acting account is given with --as <username> or ARCHIVECTL_AS (asked for in a terminal).
Every command that makes or removes tokens (create, revoke, rotate, handoff, import-legacy)
follows one rule: only an admin or superuser acts; only a superuser acts on a superuser's
tokens; no account acts on its own tokens, except that an account may hand off for itself.
A blocked account gets no new token. prune takes --as optionally; without it, the audit log
records the operating-system user as os:<name>.`,
    );

  token
    .command('create <username>')
    .description('create a token for an account and print its value once (alone on stdout)')
    .option('--name <name>', "what the token is for (unique among the account's tokens)")
    .option('--expires <YYYY-MM-DD>', 'last day of validity (UTC), at most 2038-01-18 (asked for in a terminal)')
    .option('--no-expires', 'never expires (no question in a terminal)')
    .option('--as <admin>', 'the admin or superuser creating it')
    .option('--json', 'print the token as JSON, with its value in "token"')
    .addHelpText(
      'after',
      '\nExample:\n' +
        '  TOKEN=$(archivectl token create ingest-bot --name "nightly ingest" --expires 2027-06-30 --as alice)',
    )
    .action(async (username: string, opts: { name?: string; expires?: string | false; as?: string } & JsonFlag) => {
      const actor = await resolveActor(opts.as);
      const name = await askFor(opts.name, '--name <name>', 'What is the token for (--name)?');
      const expires = await askExpiry(opts.expires);
      const { createToken } = await import('../../domain/tokens/service.js');
      const created = await withDb(globals(), (ctx) => createToken(ctx, { username, name, expires, actor }));
      printCreated(created, opts, 'Created');
    });

  token
    .command('list [username]')
    .description('list tokens (active ones; --all adds expired and revoked)')
    .option('--all', 'include expired and revoked tokens')
    .option('--account <username>', 'only the tokens of this account (the same as the argument)')
    .option('--status <status>', `only tokens with this status: ${TOKEN_STATUSES.join(', ')}`)
    .option('--expiring-within <days>', 'only active tokens that expire within this many days')
    .option('--limit <n>', 'at most this many tokens')
    .option('--as <username>', 'act as this account: a non-admin sees only its own tokens')
    .option('--json', 'print a JSON array of tokens')
    .addHelpText(
      'after',
      `
In a terminal the table fits its width (long names are cut with "…"; in a narrow one the Kind
and Created columns are left out); piped or redirected, each token is one line of tab-separated
columns, never cut. --json prints everything.

Examples:
  archivectl token list --expiring-within 30          # what needs rotating this month
  archivectl token list --account ingest-bot --all
  archivectl token list | cut -f1,3                   # ids and names`,
    )
    .action(async (argument: string | undefined, opts: ListFlags) => {
      const filter = listFilter(argument, opts);
      const { listTokensAs } = await import('../../domain/tokens/listing.js');
      const tokens = await withDb(globals(), (ctx) =>
        listTokensAs(ctx, {
          ...filter,
          expiringBefore:
            filter.expiringWithinDays === undefined
              ? undefined
              : new Date(ctx.clock.now().getTime() + filter.expiringWithinDays * 86_400_000),
          actor: optionalActor(opts.as),
        }),
      );
      if (opts.json) printJson(tokens);
      else printTokens(tokens);
    });

  token
    .command('revoke <id>')
    .description(
      'revoke a token at once (every daemon refuses it from the next request); "-" reads its value from stdin',
    )
    .option('--as <admin>', 'the admin or superuser revoking it')
    .option('--json', 'print the revoked token as JSON')
    .addHelpText(
      'after',
      `
After a leak, the value is what you have: give "-" and pipe it in (or type it, unechoed, in a
terminal). The value is never printed, logged or quoted in an error. A value given as the
argument is refused: it would stay in the shell history and show in ps.

Examples:
  archivectl token revoke Ab3dE5gH --as alice
  archivectl token revoke - --as alice < leaked-token.txt`,
    )
    .action(async (id: string, opts: { as?: string } & JsonFlag) => {
      const actor = await resolveActor(opts.as);
      const value = id === '-' ? await (await import('../read-input.js')).readTokenValue() : undefined;
      const { findTokenByValue, revokeToken } = await import('../../domain/tokens/service.js');
      const result = await withDb(globals(), async (ctx) =>
        revokeToken(ctx, value === undefined ? id : (await findTokenByValue(ctx, value)).selector, actor),
      );
      const shownId = result.token.id;
      if (result.alreadyRevoked) note(`token ${shownId} was already revoked`);
      if (opts.json) printJson(result.token);
      else if (!result.alreadyRevoked)
        note(`Revoked token ${shownId} "${result.token.name}" of ${result.token.account}.`);
    });

  token
    .command('lookup <value>')
    .description('the token a value belongs to (id, account, name, status); give "-" and the value on stdin')
    .option('--as <username>', 'act as this account: a non-admin sees only its own tokens')
    .option('--json', 'print the token as JSON')
    .addHelpText(
      'after',
      `
Only "-" is accepted: the value is read from stdin (or typed, unechoed, in a terminal), never
from the command line. Its secret is checked, so a made-up value with a real id finds nothing.

Example:
  archivectl token lookup - < leaked-token.txt`,
    )
    .action(async (argument: string, opts: { as?: string } & JsonFlag) => {
      if (argument !== '-') {
        // Never quoted: it may be the value itself.
        throw usage('give "-" and the value on stdin: a value on the command line stays in shell history and ps');
      }
      const { readTokenValue } = await import('../read-input.js');
      const value = await readTokenValue();
      const { lookupTokenAs } = await import('../../domain/tokens/listing.js');
      const found = await withDb(globals(), (ctx) => lookupTokenAs(ctx, value, optionalActor(opts.as)));
      if (opts.json) printJson(found);
      else printTokens([found]);
    });

  token
    .command('rotate <id>')
    .description('replace a token: new value, same name and expiry; the old one is revoked')
    .option('--as <admin>', 'the admin or superuser rotating it')
    .option('--json', 'print the new token as JSON, with its value in "token"')
    .action(async (id: string, opts: { as?: string } & JsonFlag) => {
      const actor = await resolveActor(opts.as);
      const { rotateToken } = await import('../../domain/tokens/service.js');
      const created = await withDb(globals(), (ctx) => rotateToken(ctx, id, actor));
      printCreated(created, opts, `Revoked ${id}; created`);
    });

  token
    .command('prune')
    .description('delete expired and revoked tokens')
    .option('--dry-run', 'count what would be deleted, delete nothing')
    .option(
      '--as <admin>',
      'the admin or superuser pruning (else ARCHIVECTL_AS; without either, the audit log names the OS user)',
    )
    .option('--yes', 'do not ask (in a terminal, prune asks first)')
    .option('--json', 'print {"pruned": n}')
    .action(async (opts: { dryRun?: boolean; as?: string; yes?: boolean } & JsonFlag) => {
      const { pruneTokens } = await import('../../domain/tokens/service.js');
      const dryRun = Boolean(opts.dryRun);
      const by = { account: optionalActor(opts.as), otherwise: osActor() };
      const result = await withDb(globals(), async (ctx) => {
        if (!dryRun && !opts.yes && isInteractive()) {
          const { pruned } = await pruneTokens(ctx, { dryRun: true, by });
          if (pruned === 0) return { pruned };
          await confirm(`Delete ${pruned} expired or revoked token(s) for good?`, false);
        }
        return pruneTokens(ctx, { dryRun, by });
      });
      if (opts.json) printJson(result);
      else note(dryRun ? `${result.pruned} token(s) would be pruned` : `pruned ${result.pruned} token(s)`);
    });

  token
    .command('handoff <username>')
    .description('create a 12-hour handoff token for an account (expired handoff tokens are removed first)')
    .option('--as <username>', 'the account itself, or an admin or superuser acting for it')
    .option('--json', 'print the token as JSON, with its value in "token"')
    .action(async (username: string, opts: { as?: string } & JsonFlag) => {
      const actor = await resolveActor(opts.as);
      const { handoffToken } = await import('../../domain/tokens/service.js');
      const created = await withDb(globals(), (ctx) => handoffToken(ctx, username, actor));
      printCreated(created, opts, 'Created 12-hour handoff');
    });

  token
    .command('import-legacy <file>')
    .description('import legacy tokens from CSV (username,token[,name]); "-" reads stdin')
    .option('--as <admin>', 'the admin or superuser importing them')
    .option('--json', 'print {"imported": n, "skipped": n}')
    .addHelpText(
      'after',
      `
The whole file is checked first: any bad line (reported by number, never with its token) means
nothing is imported. That includes a line for an account whose tokens the --as account may not
make (its own, or a superuser's unless it is a superuser). Tokens imported before are skipped,
so a re-run is safe.

Example:
  archivectl token import-legacy legacy-tokens.csv --as root`,
    )
    .action(async (file: string, opts: { as?: string } & JsonFlag) => {
      const actor = await resolveActor(opts.as);
      const { readInput } = await import('../read-input.js');
      const text = await readInput(file);
      const { importLegacy } = await import('../../domain/tokens/legacy-import.js');
      const { progressBar } = await import('../progress.js');
      const progress = progressBar();
      try {
        const result = await withDb(globals(), (ctx) =>
          importLegacy(ctx, text, { actor, ...(progress ? { progress: (...at) => progress.update(...at) } : {}) }),
        );
        progress?.done();
        if (opts.json) printJson(result);
        else note(`imported ${result.imported} legacy token(s), skipped ${result.skipped} already imported`);
      } finally {
        progress?.done();
      }
    });
}
