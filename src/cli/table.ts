// Tables (docs/operations.md, "Tables and filters"): columns two spaces apart, no borders; in a
// terminal fitted to its width (layout), elsewhere never cut. Widths by string-width, loaded only
// for text other than printable ASCII; why not cli-table3: bench/RESULTS.md, "Plain internals".
import { isPlainAscii } from './text-output.js';

export interface TableOptions {
  /** Where it goes: a terminal (and how wide), or not. */
  terminal: boolean;
  columns: number;
  /** Headings of free-text columns that may be cut to fit (names, targets). */
  flex?: string[];
  /** Headings of columns left out, in this order, while cutting is not enough to fit. */
  drop?: string[];
  /** Headings of list columns (scopes, addresses) cut only once the `drop` ones are left out. */
  cutLast?: string[];
}

const GAP = '  ';
/** A cut column keeps at least this many cells (and never less than its heading). */
const MIN_FLEX = 8;
/** Lines written at a time: a long table starts showing before it is all laid out. */
const CHUNK = 256;

let stringWidth: ((text: string) => number) | undefined;
let graphemes: Intl.Segmenter | undefined;

export async function loadWidths(): Promise<void> {
  stringWidth ??= (await import('string-width')).default;
}

/** Cells a text takes in a terminal. */
function displayWidth(text: string): number {
  if (isPlainAscii(text)) return text.length;
  if (!stringWidth)
    throw new Error('a table holds text other than ASCII, but string-width was not loaded (loadWidths)');
  return stringWidth(text);
}

/** `text` in exactly `width` cells: padded, or cut with "…", never inside a character sequence (👩‍💻, 🇩🇪, é). */
function fit(text: string, width: number): string {
  const w = displayWidth(text);
  if (w <= width) return text + ' '.repeat(width - w);
  if (isPlainAscii(text)) return `${text.slice(0, width - 1)}…`;
  let out = '';
  let used = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of graphemes.segment(text)) {
    const cells = displayWidth(segment);
    if (used + cells > width - 1) break;
    out += segment;
    used += cells;
  }
  return `${out}…${' '.repeat(width - 1 - used)}`;
}

const lineWidth = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);

/** Widths of the `kept` columns after cutting free-text ones, widest first, until the line fits if it can. */
function fitWidths(head: string[], widths: number[], kept: number[], flexible: number[], columns: number): number[] {
  const fitted = [...widths];
  const total = () => lineWidth(kept.map((i) => fitted[i] ?? 0));
  const flex = flexible.filter((i) => kept.includes(i));
  while (total() > columns && flex.length > 0) {
    flex.sort((a, b) => (fitted[b] ?? 0) - (fitted[a] ?? 0));
    const widest = flex[0] as number;
    const floor = Math.max(MIN_FLEX, displayWidth(head[widest] ?? ''));
    const cut = Math.max(floor, (fitted[widest] ?? 0) - (total() - columns));
    if (cut >= (fitted[widest] ?? 0)) flex.shift();
    else fitted[widest] = cut;
  }
  return kept.map((i) => fitted[i] ?? 0);
}

/**
 * The kept columns and their widths: all at full width unless in a terminal, where `flex` columns are cut, then
 * `drop` ones left out, then `cutLast` ones cut, then the rightmost left out until the line fits.
 */
function layout(head: string[], widths: number[], opts: TableOptions): { kept: number[]; fitted: number[] } {
  let kept = head.map((_, i) => i);
  if (!opts.terminal) return { kept, fitted: widths };
  const indexes = (names: string[] = []) => names.map((name) => head.indexOf(name)).filter((i) => i >= 0);
  const flex = indexes(opts.flex);
  const fits = (fitted: number[]) => lineWidth(fitted) <= opts.columns;
  let fitted = fitWidths(head, widths, kept, flex, opts.columns);
  for (const column of indexes(opts.drop)) {
    if (fits(fitted)) return { kept, fitted };
    kept = kept.filter((i) => i !== column);
    fitted = fitWidths(head, widths, kept, flex, opts.columns);
  }
  const all = [...flex, ...indexes(opts.cutLast)];
  fitted = fitWidths(head, widths, kept, all, opts.columns);
  while (!fits(fitted) && kept.length > 1) {
    kept = kept.slice(0, -1);
    fitted = fitWidths(head, widths, kept, all, opts.columns);
  }
  return { kept, fitted };
}

/** The table's lines, some at a time, each ending in a newline. */
export function* renderTable(head: string[], rows: string[][], opts: TableOptions): Generator<string> {
  const widths = head.map((h, i) =>
    rows.reduce((widest, row) => Math.max(widest, displayWidth(row[i] ?? '')), displayWidth(h)),
  );
  const { kept, fitted } = layout(head, widths, opts);
  const line = (row: string[]) =>
    kept
      .map((column, k) => fit(row[column] ?? '', fitted[k] ?? 0))
      .join(GAP)
      .trimEnd();
  const all = [head, ...rows];
  for (let i = 0; i < all.length; i += CHUNK) {
    const lines = all.slice(i, i + CHUNK).map(line);
    yield `${lines.join('\n')}\n`;
  }
}
