// Output for commands that print tables: text-output.ts, and tables for people (table.ts).
import type { TokenView } from '../domain/tokens/queries.js';
import { LEGACY_NAME } from '../domain/tokens/names.js';
import { io } from './io.js';
import { loadWidths, renderTable, type TableOptions } from './table.js';
import { isPlainAscii, note, shown, writeOut } from './text-output.js';

export { note, printJson, shown, writeOut } from './text-output.js';

/** An aligned table (table.ts): fitted to a terminal's width, never cut elsewhere. */
export async function printTable(
  head: string[],
  rows: (string | number)[][],
  fit: Pick<TableOptions, 'flex' | 'drop' | 'cutLast'> = {},
): Promise<void> {
  const { stdout } = io();
  const cells = rows.map((r) => r.map((cell) => (typeof cell === 'number' ? String(cell) : shown(cell))));
  if (!cells.every((r) => r.every(isPlainAscii)) || !head.every(isPlainAscii)) await loadWidths();
  const opts = { terminal: Boolean(stdout.isTTY), columns: stdout.columns ?? 80, ...fit };
  for (const lines of renderTable(head, cells, opts)) writeOut(lines);
}

/** `2026-11-20T22:35:06.123Z` → `2026-11-20 22:35 UTC`. */
export function humanTime(iso: string | null): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : 'never';
}

export function tokenName(t: Pick<TokenView, 'kind' | 'name'>): string {
  if (t.kind !== 'legacy') return t.name;
  return t.name === LEGACY_NAME ? LEGACY_NAME : `${LEGACY_NAME} (${t.name})`;
}

/** A token's scopes and addresses as every listing shows them. */
export const scopesText = (t: Pick<TokenView, 'scopes'>): string => t.scopes.join(',');
export const allowFromText = (t: Pick<TokenView, 'allow_from'>): string => t.allow_from?.join(',') ?? 'anywhere';

/** `scopes read,ai-usage; from 10.0.0.0/8; rate 600/hour`, as the notes of create and update say it. */
export function restrictionLine(t: TokenView): string {
  return `scopes ${scopesText(t)}; from ${allowFromText(t)}; rate ${t.rate_limit ?? 'no limit of its own'}`;
}

export async function printTokens(tokens: TokenView[], withAccount = true): Promise<void> {
  if (tokens.length === 0) {
    note('no tokens');
    return;
  }
  const head = [
    'ID',
    ...(withAccount ? ['Account'] : []),
    'Name',
    'Kind',
    'Status',
    'Created',
    'Last used',
    'Expires',
    'Scopes',
    'Allowed from',
    'Rate limit',
  ];
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
      scopesText(t),
      allowFromText(t),
      t.rate_limit ?? 'none',
    ]),
    // In a narrow terminal: names cut, then Kind, Created, the rate, the addresses and the last use
    // left out, then the scopes cut (--json or a pipe shows everything).
    {
      flex: ['Account', 'Name'],
      drop: ['Kind', 'Created', 'Rate limit', 'Allowed from', 'Last used'],
      cutLast: ['Scopes', 'Allowed from'],
    },
  );
}
