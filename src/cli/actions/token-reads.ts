// The token commands that only read: list, lookup and show (the others: token.ts).
import { TOKEN_KIND, TOKEN_STATUS, parseArg, wholeNumber } from '../args.js';
import { optionalActor } from '../ask.js';
import { withDb, type AsFlag, type Globals, type JsonFlag } from '../context.js';
import {
  humanTime,
  note,
  printJson,
  printTable,
  printTokens,
  allowFromText,
  scopesText,
  tokenName,
  writeOut,
} from '../output.js';
import { readTokenValue } from '../read-input.js';
import { listTokensAs, lookupTokenAs, showTokenAs } from '../../domain/tokens/listing.js';
import { usage } from '../../errors.js';
import type { v } from '../../validation.js';

export interface ListFlags extends AsFlag, JsonFlag {
  all?: boolean;
  account?: string;
  status?: string;
  expiringWithin?: string;
  kind?: string;
  unusedFor?: string;
  limit?: string;
}

const parseFilter = <S extends v.GenericSchema>(schema: S, value: string | undefined) =>
  value === undefined ? undefined : parseArg(schema, value);

const daysBefore = (at: Date, days: number) => new Date(at.getTime() - days * 86_400_000);

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

export async function lookup(globals: Globals, argument: string, opts: AsFlag & JsonFlag): Promise<void> {
  if (argument !== '-') {
    // Never quoted: it may be the value itself.
    throw usage('give "-" and the value on stdin: a value on the command line stays in shell history and ps');
  }
  const value = await readTokenValue();
  const found = await withDb(globals(), (ctx) => lookupTokenAs(ctx, value, optionalActor(opts.as)));
  if (opts.json) printJson(found);
  else await printTokens([found]);
}

export async function show(globals: Globals, id: string, opts: AsFlag & JsonFlag): Promise<void> {
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
      ['Scopes', scopesText(token)],
      ['Allowed from', allowFromText(token)],
      ['Rate limit', token.rate_limit ?? 'none of its own'],
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
