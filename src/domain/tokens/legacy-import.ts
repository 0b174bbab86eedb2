// `token import-legacy`: CSV `username,token[,name]` from the one-token-per-user scheme.
// The whole file is checked before anything is written; one bad line and nothing is imported.
// Messages name the line, never the token (a token in an error message is a leaked token).
// Importing makes tokens: the rule of token create (policy.ts) holds for every line's account, or
// an importer choosing the value of root's token would hold root's rights.
import { parse } from 'csv-parse/sync';
import type { Knex } from 'knex';
import pLimit from 'p-limit';
import { v } from '../../validation.js';
import { conflict, forbidden, invalid, notFound } from '../../errors.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { record } from '../audit.js';
import type { Ctx } from '../context.js';
import { getAccount, type Account } from '../accounts.js';
import { isLegacyValue, LEGACY_LENGTH, SELECTOR_LENGTH } from './format.js';
import { hashSecret, secretCheck, verifySecret } from './hash.js';
import { checkTokenName, LEGACY_NAME } from './names.js';
import { assertMayManageTokens, refusalFor } from './policy.js';

export interface LegacyLine {
  line: number;
  username: string;
  selector: string;
  secret: string;
  name: string;
}

const COLUMNS = ['username', 'token', 'name'];
/** A header cell quoted in a message: a word, never something that could be a token. */
const word = (n: string) => /^[a-z_ ]{1,20}$/.test(n);
const CHUNK = 500; // rows per IN (...) list and per INSERT: well under every dialect's limits
const KDF_LANES = 4; // scrypt runs in flight (on libuv's pool)

const LEGACY_ROW = v.object({
  username: v.pipe(v.optional(v.string(), ''), v.minLength(1, 'the username is empty')),
  token: v.pipe(
    v.optional(v.string(), ''),
    v.check(isLegacyValue, `the token is not ${LEGACY_LENGTH} characters of A-Z, a-z, 0-9`),
  ),
  // The name rules of `token create`, whose messages already read as a line's problem.
  name: v.pipe(
    v.optional(v.string(), ''),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      if (!dataset.value) return LEGACY_NAME;
      try {
        return checkTokenName(dataset.value);
      } catch (err) {
        addIssue({ message: (err as Error).message });
        return NEVER;
      }
    }),
  ),
});

/** Parses and checks the CSV text on its own (no database). Returns lines or error messages. */
export function parseLegacyCsv(text: string): { lines: LegacyLine[]; errors: string[] } {
  const errors: string[] = [];
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, {
      columns: (header: string[]) => {
        const names = header.map((h) => h.trim().toLowerCase());
        // A file without the header starts with a token: its first line is data, and is never
        // quoted. A column name is quoted only when it reads as a word (a misspelt "usrname").
        if (!names.includes('username') || !names.includes('token')) {
          const unknown = names.filter((n) => !COLUMNS.includes(n) && word(n));
          const said = unknown.length > 0 ? ` (unknown column(s) ${unknown.map((u) => `"${u}"`).join(', ')})` : '';
          throw invalid(`line 1 must be the header username,token or username,token,name${said}; nothing was imported`);
        }
        const unknown = names.map((n, i) => (COLUMNS.includes(n) ? null : word(n) ? `"${n}"` : `column ${i + 1}`));
        if (unknown.some((u) => u !== null))
          throw invalid(
            `line 1: unknown column(s) ${unknown.filter((u) => u !== null).join(', ')}; expected username,token[,name]`,
          );
        return names;
      },
      bom: true,
      info: true,
      skip_empty_lines: true,
      trim: true,
    }) as unknown as typeof records;
  } catch (err) {
    if (err instanceof Error && err.name === 'AppError') throw err;
    // csv-parse messages may quote field content (a token): report only where and what kind.
    const e = err as { code?: string; lines?: number };
    throw invalid(`line ${e.lines ?? '?'}: malformed CSV (${e.code ?? 'parse error'}); nothing was imported`);
  }

  const lines: LegacyLine[] = [];
  const seen = new Map<string, number>(); // selector -> line
  for (const { record: rec, info } of records) {
    const line = info.lines;
    const r = v.safeParse(LEGACY_ROW, rec);
    const issues = r.success ? [] : r.issues;
    const badToken = issues.some((issue) => v.getDotPath(issue) === 'token');
    // A line whose token is unreadable is reported for that (and its username), nothing more.
    for (const issue of issues) {
      if (!(badToken && v.getDotPath(issue) === 'name')) errors.push(`line ${line}: ${issue.message}`);
    }
    if (badToken) continue;
    const { username, token, name } = r.success
      ? r.output
      : { username: rec.username ?? '', token: rec.token ?? '', name: LEGACY_NAME };
    const selector = token.slice(0, SELECTOR_LENGTH);
    const earlier = seen.get(selector);
    if (earlier !== undefined) {
      errors.push(
        `line ${line}: the token's first ${SELECTOR_LENGTH} characters (its id ${selector}) repeat line ${earlier}`,
      );
      continue;
    }
    seen.set(selector, line);
    lines.push({ line, username, selector, secret: token.slice(SELECTOR_LENGTH), name });
  }
  return { lines, errors };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

async function accountsNamed(db: Knex, usernames: string[]): Promise<Map<string, Account>> {
  const found = new Map<string, Account>();
  for (const part of chunks(usernames, CHUNK)) {
    for (const a of await db('accounts').whereIn('username', part).select<Account[]>('id', 'username', 'role'))
      found.set(a.username, a);
  }
  return found;
}

export async function importLegacy(
  ctx: Ctx,
  text: string,
  opts: { actor: string; progress?: (phase: 'checking' | 'hashing', done: number, total: number) => void },
): Promise<{ imported: number; skipped: number }> {
  const acting = await getAccount(ctx, opts.actor);
  assertMayManageTokens(acting, 'import');
  const actor = acting.username;
  const { lines, errors } = parseLegacyCsv(text);

  // Accounts must exist, and be ones whose tokens the actor may make.
  const usernames = [...new Set(lines.map((l) => l.username))];
  const accounts = await accountsNamed(ctx.db, usernames);
  for (const l of lines) {
    if (!l.username) continue;
    const owner = accounts.get(l.username);
    const refusal = owner && refusalFor(acting, owner, 'import');
    if (!owner) errors.push(`line ${l.line}: no account named "${l.username}"`);
    else if (refusal) errors.push(`line ${l.line}: ${refusal}`);
  }

  // Already imported (re-run): skipped when the stored hash matches; any other token holding
  // the same id is a collision that cannot be imported.
  const selectors = lines.map((l) => l.selector);
  const imported = new Map<string, string>();
  const taken = new Set<string>();
  for (const part of chunks(selectors, CHUNK)) {
    const before = await ctx
      .db('legacy_imports')
      .whereIn('selector', part)
      .select<{ selector: string; secret_hash: string }[]>('selector', 'secret_hash');
    for (const r of before) imported.set(r.selector, r.secret_hash);
    for (const r of await ctx.db('tokens').whereIn('selector', part).select<{ selector: string }[]>('selector'))
      taken.add(r.selector);
  }
  const fresh: LegacyLine[] = [];
  let skipped = 0;
  let checked = 0;
  const previously = lines.filter((l) => imported.has(l.selector));
  await pLimit(KDF_LANES).map(previously, async (l) => {
    if (await verifySecret(imported.get(l.selector) as string, l.secret)) skipped++;
    else errors.push(`line ${l.line}: another token with the same id ${l.selector} was imported before`);
    opts.progress?.('checking', ++checked, previously.length);
  });
  for (const l of lines) {
    if (imported.has(l.selector)) continue;
    if (taken.has(l.selector)) errors.push(`line ${l.line}: the id ${l.selector} is already used by another token`);
    else fresh.push(l);
  }

  // Names are unique among an account's non-revoked tokens, in the file and in the database.
  const names = new Map<string, number>();
  const freshAccounts = [...new Set(fresh.map((l) => accounts.get(l.username)?.id).filter((id) => id !== undefined))];
  for (const part of chunks(freshAccounts, CHUNK)) {
    const named = await ctx
      .db('tokens')
      .whereIn('account_id', part)
      .whereNull('revoked_at')
      .select<{ account_id: number; name: string }[]>('account_id', 'name');
    for (const r of named) names.set(`${r.account_id}\u0000${r.name}`, 0);
  }
  for (const l of fresh) {
    const key = `${accounts.get(l.username)?.id}\u0000${l.name}`;
    const clash = names.get(key);
    if (clash === 0) errors.push(`line ${l.line}: ${l.username} already has a token named "${l.name}"`);
    else if (clash !== undefined)
      errors.push(`line ${l.line}: ${l.username} has a token named "${l.name}" on line ${clash} too`);
    else names.set(key, l.line);
  }

  if (errors.length > 0) {
    errors.sort((a, b) => Number(/\d+/.exec(a)?.[0]) - Number(/\d+/.exec(b)?.[0]));
    throw invalid(`${errors.join('\n')}\nnothing was imported`);
  }

  let hashed = 0;
  const hashes = await pLimit(KDF_LANES).map(fresh, async (l) => {
    const h = await hashSecret(l.secret);
    opts.progress?.('hashing', ++hashed, fresh.length);
    return h;
  });

  const now = ctx.clock.now().toISOString();
  await writeTransaction(ctx.db, async (trx) => {
    // Hashing a large file takes a while: the roles are checked again where they count, in
    // the transaction that writes (an owner promoted to superuser meanwhile is refused).
    const owners = [...new Set(fresh.map((l) => l.username))];
    const current = await accountsNamed(trx, [actor, ...owners]);
    const nowActing = current.get(actor);
    if (!nowActing) throw notFound(`no account named "${actor}"; nothing was imported`);
    assertMayManageTokens(nowActing, 'import');
    for (const username of owners) {
      const owner = current.get(username);
      if (!owner || owner.id !== accounts.get(username)?.id)
        throw conflict(`the account ${username} changed during the import; nothing was imported, try again`);
      const refusal = refusalFor(nowActing, owner, 'import');
      if (refusal) throw forbidden(`${refusal}; nothing was imported`);
    }
    const rows = fresh.map((l, i) => ({ l, hash: hashes[i] as string }));
    for (const part of chunks(rows, 100)) {
      await trx('tokens').insert(
        part.map(({ l, hash }) => ({
          selector: l.selector,
          account_id: accounts.get(l.username)?.id,
          name: l.name,
          kind: 'legacy',
          secret_hash: hash,
          secret_check: secretCheck(l.secret),
          expires: null,
          expires_at: null,
          created_at: now,
          last_used_at: null,
          revoked_at: null,
        })),
      );
      await trx('legacy_imports').insert(
        part.map(({ l, hash }) => ({ selector: l.selector, secret_hash: hash, imported_at: now })),
      );
    }
    const target = `${fresh.length} legacy tokens (${skipped} already imported)`;
    if (fresh.length > 0) await record(trx, ctx.clock.now(), actor, 'token.import-legacy', target);
  });
  return { imported: fresh.length, skipped };
}
