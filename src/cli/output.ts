// Shared output: one JSON document for --json, a table for people (table.ts). Data goes to
// stdout; notes, warnings and progress go to stderr, so `$(archivectl …)` captures only data.
// Everything goes to the run's io (io.ts), never straight to the process's streams.
//
// Text from the database (names, usernames, audit entries: rows written before names were
// checked, or by a legacy import) may hold characters a terminal obeys instead of showing (an
// escape sequence, a right-to-left override). People-facing output shows them escaped
// (`\x1b`, `\u202e`); --json keeps the exact data, with those characters as JSON \u escapes.
import type { TokenView } from '../domain/tokens/queries.js';
import { escapeUnsafe, INVISIBLE_CLASS } from '../unsafe-text.js';
import { LEGACY_NAME } from '../domain/tokens/names.js';
import { io } from './io.js';
import { renderTable } from './table.js';

// JSON.stringify escapes C0 controls but writes DEL, C1 controls and the format characters
// as they are. They can only occur inside strings, where \uXXXX means the same character.
const JSON_UNSAFE = new RegExp(`[${INVISIBLE_CLASS}]`, 'g');

export function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    JSON_UNSAFE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function printJson(value: unknown): void {
  io().stdout.write(`${toJson(value)}\n`);
}

/** Text for people, as it is: the caller has escaped what came from the database. */
export function writeOut(text: string): void {
  io().stdout.write(text);
}

/** One or more lines on stderr; line breaks are kept, anything else a terminal obeys is escaped. */
export function note(message: string): void {
  io().stderr.write(`${escapeUnsafe(message, { keepNewlines: true })}\n`);
}

/** A value from the database for a single line of people-facing output. */
export function shown(text: string): string {
  return escapeUnsafe(text);
}

/**
 * A table (table.ts): aligned and fitted to the width in a terminal, aligned and never cut elsewhere.
 * `fit.flex`: the free-text columns that may be cut to fit a terminal; `fit.drop`: columns left
 * out, in that order, when cutting is not enough.
 */
export function printTable(
  head: string[],
  rows: (string | number)[][],
  fit: { flex?: number[]; drop?: number[] } = {},
): void {
  const { stdout } = io();
  const cells = rows.map((r) => r.map((cell) => (typeof cell === 'number' ? String(cell) : shown(cell))));
  for (const lines of renderTable(head, cells, {
    terminal: Boolean(stdout.isTTY),
    columns: stdout.columns ?? 80,
    ...fit,
  }))
    writeOut(lines);
}

/** `2026-11-20T22:35:06.123Z` → `2026-11-20 22:35 UTC`. */
export function humanTime(iso: string | null, empty = 'never'): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : empty;
}

export function tokenName(t: Pick<TokenView, 'kind' | 'name'>): string {
  if (t.kind !== 'legacy') return t.name;
  return t.name === LEGACY_NAME ? LEGACY_NAME : `${LEGACY_NAME} (${t.name})`;
}

export function printTokens(tokens: TokenView[], withAccount = true): void {
  if (tokens.length === 0) {
    note('no tokens');
    return;
  }
  const head = ['ID', ...(withAccount ? ['Account'] : []), 'Name', 'Kind', 'Status', 'Created', 'Last used', 'Expires'];
  printTable(
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
    // In a narrow terminal Kind goes first, then Created (--json or a pipe shows everything).
    withAccount ? { flex: [1, 2], drop: [3, 5] } : { flex: [1], drop: [2, 4] },
  );
}
