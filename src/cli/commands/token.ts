import type { Command } from 'commander';
import type { AsFlag, Globals, JsonFlag } from '../context.js';
import type { CreateFlags, PruneFlags, RotateFlags, UpdateFlags } from '../actions/token.js';
import type { ListFlags } from '../actions/token-reads.js';
import { TOKEN_KINDS, TOKEN_STATUSES } from '../../domain/tokens/queries.js';
import { SCOPE_TEXT, SCOPES } from '../../domain/scopes.js';
import { optionalAsHelp, helpText } from '../about.js';

const actions = () => import('../actions/token.js');
const reads = () => import('../actions/token-reads.js');

/** The scopes and what each allows, for the help of create and update. */
const SCOPE_HELP = SCOPES.map((s) => `  ${s.padEnd(14)} ${SCOPE_TEXT[s]}`).join('\n');

const RESTRICTIONS_HELP = `
--scope narrows the token to some of its account's rights (comma-separated; without it the
token has every right of its account, shown as *). A request outside them is answered 403
with WWW-Authenticate: Bearer error="insufficient_scope", scope="<the one needed>".
${SCOPE_HELP}
--allow-from binds the token to client addresses (IPv4 and IPv6 CIDR blocks or addresses,
comma-separated, as the daemon judges the client behind trustProxy); from elsewhere it is
answered 403, and the use is audited once a day per address. --rate-limit N/minute or N/hour
is the token's own request rate.`;
/** --scope, --allow-from and --rate-limit: given at create, changed at update (where any and none lift them). */
function withRestrictions(command: Command, at: 'create' | 'update'): Command {
  const create = at === 'create';
  return command
    .option(
      '--scope <scopes>',
      `only these rights of the account: ${SCOPES.join(', ')}${create ? ' (default: all, *)' : '; * for all of them'}`,
    )
    .option(
      '--allow-from <cidrs>',
      `accepted only from these addresses, e.g. 10.0.0.0/8,2001:db8::/32${create ? ' (default: anywhere)' : '; any: from anywhere'}`,
    )
    .option(
      '--rate-limit <rate>',
      `at most N requests per minute or hour, e.g. 600/hour${create ? ' (default: none of its own)' : '; none: no limit of its own'}`,
    );
}

export function registerToken(program: Command, globals: Globals): void {
  const token = program
    .command('token')
    .description('create, list, revoke and rotate API tokens')
    .addHelpText(
      'after',
      helpText(`
The acting account is given with --as <username> or ARCHIVECTL_AS (asked for in a terminal).
Every command that makes or removes tokens (create, revoke, rotate, handoff, import-legacy)
follows one rule: only an admin or superuser acts; only a superuser acts on a superuser's
tokens; no account acts on its own tokens, except that an account may hand off for itself.
A blocked account gets no new token. prune needs --as too (an admin or superuser), and without a terminal --yes.

While the setting token_max_days is N, create and rotate without --expires end the token N days
from today, and refuse a later --expires or --no-expires (archivectl settings --help).`),
    );

  withRestrictions(
    token
      .command('create <username>')
      .description('create a token for an account and print its value once (alone on stdout)')
      .option('--name <name>', "what the token is for (unique among the account's tokens)")
      .option(
        '--expires <YYYY-MM-DD>',
        'last day of validity (UTC), at most 2038-01-18 and within token_max_days when set (asked for in a terminal)',
      )
      .option('--no-expires', 'never expires (no question in a terminal; refused while token_max_days is set)'),
    'create',
  )
    .option('--as <admin>', 'the admin or superuser creating it')
    .option('--json', 'print the token as JSON, with its value in "token"')
    .addHelpText(
      'after',
      helpText(
        `${RESTRICTIONS_HELP}\n\nExample:\n` +
          '  TOKEN=$(archivectl token create ingest-bot --name "nightly ingest" --expires 2027-06-30 --as alice)\n' +
          '\nA token that may only record AI usage, from one server, 600 requests an hour:\n' +
          '  archivectl token create ai-tool --name "AI usage" --scope ai-usage --allow-from 192.0.2.10 --rate-limit 600/hour --as alice',
      ),
    )
    .action(async (username: string, opts: CreateFlags) => (await actions()).create(globals, username, opts));

  token
    .command('list [username]')
    .description('list tokens (active ones; --all adds expired and revoked)')
    .option('--all', 'include expired and revoked tokens')
    .option('--account <username>', 'only the tokens of this account (the same as the argument)')
    .option('--status <status>', `only tokens with this status: ${TOKEN_STATUSES.join(', ')}`)
    .option('--expiring-within <days>', 'only active tokens that expire within this many days')
    .option('--kind <kind>', `only tokens of this kind: ${TOKEN_KINDS.join(', ')}`)
    .option('--unused-for <days>', 'only tokens never used, or not used for this many days')
    .option('--limit <n>', 'at most this many tokens')
    .option('--as <username>', 'act as this account: a non-admin sees only its own tokens')
    .option('--json', 'print a JSON array of tokens, each with last_used_from: the address of its last use')
    .addHelpText(
      'after',
      helpText(`
The filters combine: --kind legacy --unused-for 90 are the legacy tokens unused for 90 days.
In a terminal the table fits its width (long names are cut with "…"; in a narrow one the Kind
and Created columns are left out); piped or redirected, each token is one line of aligned columns, never cut. Scripts use --json: it prints everything, and names may hold spaces.

Examples:
  archivectl token list --expiring-within 30          # what needs rotating this month
  archivectl token list --unused-for 90 --all          # candidates for revoking
  archivectl token list --account ingest-bot --all
  archivectl token list | awk 'NR > 1 {print $1}'    # the ids`),
    )
    .action(async (argument: string | undefined, opts: ListFlags) => (await reads()).list(globals, argument, opts));

  token
    .command('revoke <id>')
    .description(
      'revoke a token at once (every daemon refuses it from the next request); "-" reads its value from stdin',
    )
    .option('--as <admin>', 'the admin or superuser revoking it')
    .option('--json', 'print the revoked token as JSON')
    .addHelpText(
      'after',
      helpText(`
After a leak, the value is what you have: give "-" and pipe it in (or type it, unechoed, in a
terminal). The value is never printed, logged or quoted in an error. A value given as the
argument is refused: it would stay in the shell history and show in ps.

Examples:
  archivectl token revoke Ab3dE5gH --as alice
  archivectl token revoke - --as alice < leaked-token.txt`),
    )
    .action(async (id: string, opts: AsFlag & JsonFlag) => (await actions()).revoke(globals, id, opts));

  token
    .command('lookup <value>')
    .description('the token a value belongs to (id, account, name, status); give "-" and the value on stdin')
    .option('--as <username>', 'act as this account: a non-admin sees only its own tokens')
    .option('--json', 'print the token as JSON')
    .addHelpText(
      'after',
      helpText(`
Only "-" is accepted: the value is read from stdin (or typed, unechoed, in a terminal), never
from the command line. Its secret is checked, so a made-up value with a real id finds nothing.

Example:
  archivectl token lookup - < leaked-token.txt`),
    )
    .action(async (argument: string, opts: AsFlag & JsonFlag) => (await reads()).lookup(globals, argument, opts));

  token
    .command('show <id>')
    .description('one token: its fields and the last five addresses it was used from')
    .option('--as <username>', 'act as this account: a non-admin sees only its own tokens')
    .option('--json', 'print the token as JSON, with last_used_from and addresses [{address, first_seen, last_seen}]')
    .addHelpText(
      'after',
      helpText(`
Addresses are the clients' as the daemon judged them (behind trustProxy, the forwarded ones).
A use from a new address is recorded within about a second, further uses at most once a
minute; the 20 most recently seen addresses of a token are kept.

Example:
  archivectl token show Ab3dE5gH`),
    )
    .action(async (id: string, opts: AsFlag & JsonFlag) => (await reads()).show(globals, id, opts));

  token
    .command('rotate <id>')
    .description('replace a token: new value, same name, expiry, scopes, addresses and rate; the old one is revoked')
    .option('--expires <YYYY-MM-DD>', 'a new last day of validity instead of the old one')
    .option('--no-expires', 'the new token never expires (refused while token_max_days is set)')
    .option('--as <admin>', 'the admin or superuser rotating it')
    .option('--json', 'print the new token as JSON, with its value in "token"')
    .addHelpText(
      'after',
      helpText(`
While token_max_days is set, the new token ends that many days from today unless --expires
gives an earlier day (a way to renew a token that ends soon).`),
    )
    .action(async (id: string, opts: RotateFlags) => (await actions()).rotate(globals, id, opts));

  withRestrictions(
    token
      .command('update <id>')
      .description('change what narrows a token (its scopes, addresses, rate); its value stays'),
    'update',
  )
    .option('--as <admin>', 'the admin or superuser changing it')
    .option('--json', 'print the token as JSON')
    .addHelpText(
      'after',
      helpText(`
What is not given stays as it is. Every daemon applies the change from its next request.
Who may update a token is who may rotate it.
${RESTRICTIONS_HELP}

Examples:
  archivectl token update Ab3dE5gH --scope read,ai-usage --as alice
  archivectl token update Ab3dE5gH --allow-from any --rate-limit none --as alice`),
    )
    .action(async (id: string, opts: UpdateFlags) => (await actions()).update(globals, id, opts));

  token
    .command('prune')
    .description('delete expired and revoked tokens')
    .option('--dry-run', 'count what would be deleted, delete nothing')
    .option('--as <admin>', optionalAsHelp('pruning'))
    .option('--yes', 'do not ask (in a terminal, prune asks first; without one --yes is required)')
    .option('--json', 'print {"pruned": n}')
    .action(async (opts: PruneFlags) => (await actions()).prune(globals, opts));

  token
    .command('handoff <username>')
    .description('create a 12-hour handoff token for an account (expired handoff tokens are removed first)')
    .option('--as <username>', 'the account itself, or an admin or superuser acting for it')
    .option('--json', 'print the token as JSON, with its value in "token"')
    .action(async (username: string, opts: AsFlag & JsonFlag) => (await actions()).handoff(globals, username, opts));

  token
    .command('import-legacy <file>')
    .description('import legacy tokens from CSV with the header line username,token[,name]; "-" reads stdin')
    .option('--as <admin>', 'the admin or superuser importing them')
    .option('--json', 'print {"imported": n, "skipped": n}')
    .addHelpText(
      'after',
      helpText(`
The first line is the header, naming the columns in the order of the lines below it:
  username,token,name
  bob,AbCdEfGh0123456789AbCdEfGh0123456789AbCdEfGh0123456789AbCdEf,nightly export
  carol,ZyXwVuTs0123456789ZyXwVuTs0123456789ZyXwVuTs0123456789ZyXwVu,
"name" may be left out (header username,token): such tokens are named "Legacy API token".
A file without the header is refused (its first line would be read as column names).

The whole file is checked first: any bad line (reported by number, never with its token) means
nothing is imported. That includes a line for an account whose tokens the --as account may not
make (its own, or a superuser's unless it is a superuser). Tokens imported before are skipped,
so a re-run is safe.

Example:
  archivectl token import-legacy legacy-tokens.csv --as root`),
    )
    .action(async (file: string, opts: AsFlag & JsonFlag) => (await actions()).importLegacyFile(globals, file, opts));
}
