// Shared output: one JSON document for --json, a cli-table3 table for people. Data goes to
// stdout; notes, warnings and progress go to stderr, so `$(archivectl …)` captures only data.
import type { TokenView } from '../domain/tokens/queries.js';
import { LEGACY_NAME } from '../domain/tokens/names.js';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}

export async function printTable(head: string[], rows: (string | number)[][]): Promise<void> {
  // Loaded on demand: only commands that print a table pay for it.
  const { default: Table } = await import('cli-table3');
  const table = new Table({ head, style: { head: [], border: [] } });
  table.push(...rows.map((r) => r.map(String)));
  process.stdout.write(`${table.toString()}\n`);
}

/** `2026-11-20T22:35:06.123Z` → `2026-11-20 22:35 UTC`. */
export function humanTime(iso: string | null, empty = 'never'): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : empty;
}

export function tokenName(t: Pick<TokenView, 'kind' | 'name'>): string {
  if (t.kind !== 'legacy') return t.name;
  return t.name === LEGACY_NAME ? LEGACY_NAME : `${LEGACY_NAME} (${t.name})`;
}

export async function printTokens(tokens: TokenView[], withAccount = true): Promise<void> {
  if (tokens.length === 0) {
    note('no tokens');
    return;
  }
  const head = ['ID', ...(withAccount ? ['Account'] : []), 'Name', 'Kind', 'Status', 'Created', 'Last used', 'Expires'];
  await printTable(
    head,
    tokens.map((t) => [
      t.id,
      ...(withAccount ? [t.account] : []),
      tokenName(t),
      t.kind,
      t.status,
      humanTime(t.created),
      humanTime(t.last_used),
      t.expires ?? 'never',
    ]),
  );
}
