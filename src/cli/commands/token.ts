import type { Command } from 'commander';
import { askFor, optionalActor, osActor, resolveActor } from '../ask.js';
import { withDb, type GlobalOptions } from '../context.js';
import { note, printJson, printTokens, writeOut } from '../output.js';
import type { CreatedToken } from '../../domain/tokens/service.js';

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
    .option('--expires <YYYY-MM-DD>', 'last day of validity (UTC), at most 2038-01-18')
    .option('--as <admin>', 'the admin or superuser creating it')
    .option('--json', 'print the token as JSON, with its value in "token"')
    .addHelpText(
      'after',
      '\nExample:\n' +
        '  TOKEN=$(archivectl token create ingest-bot --name "nightly ingest" --expires 2027-06-30 --as alice)',
    )
    .action(async (username: string, opts: { name?: string; expires?: string; as?: string } & JsonFlag) => {
      const actor = await resolveActor(opts.as);
      const name = await askFor(opts.name, '--name <name>', 'What is the token for (--name)?');
      const { createToken } = await import('../../domain/tokens/service.js');
      const created = await withDb(globals(), (ctx) =>
        createToken(ctx, { username, name, expires: opts.expires, actor }),
      );
      printCreated(created, opts, 'Created');
    });

  token
    .command('list [username]')
    .description('list tokens (active ones; --all adds expired and revoked)')
    .option('--all', 'include expired and revoked tokens')
    .option('--as <username>', 'act as this account: a non-admin sees only its own tokens')
    .option('--json', 'print a JSON array of tokens')
    .action(async (username: string | undefined, opts: { all?: boolean; as?: string } & JsonFlag) => {
      const { listTokensAs } = await import('../../domain/tokens/listing.js');
      const tokens = await withDb(globals(), (ctx) =>
        listTokensAs(ctx, { username, all: Boolean(opts.all), actor: optionalActor(opts.as) }),
      );
      if (opts.json) printJson(tokens);
      else await printTokens(tokens);
    });

  token
    .command('revoke <id>')
    .description('revoke a token at once (every daemon refuses it from the next request)')
    .option('--as <admin>', 'the admin or superuser revoking it')
    .option('--json', 'print the revoked token as JSON')
    .action(async (id: string, opts: { as?: string } & JsonFlag) => {
      const actor = await resolveActor(opts.as);
      const { revokeToken } = await import('../../domain/tokens/service.js');
      const result = await withDb(globals(), (ctx) => revokeToken(ctx, id, actor));
      if (result.alreadyRevoked) note(`token ${id} was already revoked`);
      if (opts.json) printJson(result.token);
      else if (!result.alreadyRevoked) note(`Revoked token ${id} "${result.token.name}" of ${result.token.account}.`);
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
    .option('--json', 'print {"pruned": n}')
    .action(async (opts: { dryRun?: boolean; as?: string } & JsonFlag) => {
      const { pruneTokens } = await import('../../domain/tokens/service.js');
      const dryRun = Boolean(opts.dryRun);
      const by = { account: optionalActor(opts.as), otherwise: osActor() };
      const result = await withDb(globals(), (ctx) => pruneTokens(ctx, { dryRun, by }));
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
