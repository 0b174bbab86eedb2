// Tables (docs/operations.md, "Tables and filters"), drawn by cli-table3 without borders. In a
// terminal, free-text columns are cut to fit, then the columns the caller names are left out;
// elsewhere nothing is. Cells arrive escaped (output.ts): plain text that grep and awk read.
//
// Widths are string-width's, measured once for the whole table; cells are cut here, so cli-table3
// only pads and joins them. Printable ASCII is one cell a character: string-width, whose loading
// creates an Intl.Segmenter (15 to 40 ms), is loaded (loadWidths, output.ts) for other text only.
import Table from 'cli-table3';
import { isPlainAscii } from './text-output.js';

export interface TableOptions {
  /** Where it goes: a terminal (and how wide), or not. */
  terminal: boolean;
  columns: number;
  /** Indexes of free-text columns that may be cut to fit (names, targets), widest first. */
  flex?: number[];
  /** Indexes of columns left out, in this order, while cutting is not enough to fit. */
  drop?: number[];
}

const GAP = '  ';
/** A cut column keeps at least this many cells (and never less than its heading). */
const MIN_FLEX = 8;
/** Rows per cli-table3 table: its layout costs rows², its set-up a little per table (measured). */
const CHUNK = 16;

/** cli-table3's border characters, all empty; only the one between columns is the gap. */
const BORDERLESS = {
  ...Object.fromEntries(
    `top top-mid top-left top-right bottom bottom-mid bottom-left bottom-right
     left left-mid mid mid-mid right right-mid`
      .split(/\s+/)
      .map((name) => [name, '']),
  ),
  middle: GAP,
};
const PLAIN = { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true };

let stringWidth: ((text: string) => number) | undefined;
let graphemes: Intl.Segmenter | undefined;

export async function loadWidths(): Promise<void> {
  stringWidth ??= (await import('string-width')).default;
}

/** Cells a text takes in a terminal, by string-width (wide characters and emoji two, combining marks none). */
function displayWidth(text: string): number {
  if (isPlainAscii(text)) return text.length;
  if (!stringWidth)
    throw new Error('a table holds text other than ASCII, but string-width was not loaded (loadWidths)');
  return stringWidth(text);
}

/** `text` cut to `width` cells, ending in "…" when cut; never inside a character sequence (👩‍💻, 🇩🇪, é). */
function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (isPlainAscii(text)) return `${text.slice(0, width - 1)}…`;
  let out = '';
  let used = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of graphemes.segment(text)) {
    const w = displayWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** Lines of cli-table3's drawing of `rows`, each cell padded to its column's width. */
function draw(rows: string[][], colWidths: number[]): string[] {
  // A copy: cli-table3 writes its computed widths back into the array it is given.
  const table = new Table({ chars: BORDERLESS, style: PLAIN, colWidths: [...colWidths] });
  table.push(...rows);
  return table.toString().split('\n');
}

/**
 * How much wider a text is than cli-table3 measures it: its string-width 4.x counts newer emoji
 * (🫠, U+1FAE0) as one cell, and combining marks outside U+0300–036F (Devanagari, U+20D7) and
 * conjoining Hangul jamo as cells of their own. Found by letting cli-table3 pad the text alone.
 */
function misjudged(text: string, cache: Map<string, number>): number {
  // ASCII, also when cut: both measure the "…" that ends a cut text as one cell.
  if (isPlainAscii(text.endsWith('…') ? text.slice(0, -1) : text)) return 0;
  let delta = cache.get(text);
  if (delta === undefined) {
    const room = 2 * text.length + 1; // more than its measure: no code unit counts more than two
    const padded = (draw([[text]], [room])[0] ?? '').length - text.length;
    delta = displayWidth(text) - (room - padded);
    cache.set(text, delta);
  }
  return delta;
}

/** Widths of the `kept` columns after cutting free-text ones until the line fits, if it can. */
function fitWidths(head: string[], widths: number[], kept: number[], opts: TableOptions): number[] {
  const fitted = [...widths];
  const total = () => lineWidth(kept.map((i) => fitted[i] ?? 0));
  const flex = (opts.flex ?? []).filter((i) => kept.includes(i));
  while (total() > opts.columns && flex.length > 0) {
    flex.sort((a, b) => (fitted[b] ?? 0) - (fitted[a] ?? 0));
    const widest = flex[0] as number;
    const floor = Math.max(MIN_FLEX, displayWidth(head[widest] ?? ''));
    const cut = Math.max(floor, (fitted[widest] ?? 0) - (total() - opts.columns));
    if (cut >= (fitted[widest] ?? 0)) flex.shift();
    else fitted[widest] = cut;
  }
  return kept.map((i) => fitted[i] ?? 0);
}

const lineWidth = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);

/** Which columns are kept, and their widths: all of them at full width unless in a terminal. */
function layout(head: string[], widths: number[], opts: TableOptions): { kept: number[]; fitted: number[] } {
  let kept = head.map((_, i) => i);
  if (!opts.terminal) return { kept, fitted: widths };
  let fitted = fitWidths(head, widths, kept, opts);
  // Leave out columns (opts.drop, in order) while even cutting the free-text ones is not enough.
  for (const column of opts.drop ?? []) {
    if (lineWidth(fitted) <= opts.columns) break;
    kept = kept.filter((i) => i !== column);
    fitted = fitWidths(head, widths, kept, opts);
  }
  return { kept, fitted };
}

/** The table's lines, a chunk at a time: a long table starts showing before it is all drawn. */
export function* renderTable(head: string[], rows: string[][], opts: TableOptions): Generator<string> {
  const widths = head.map((h, i) =>
    rows.reduce((widest, row) => Math.max(widest, displayWidth(row[i] ?? '')), displayWidth(h)),
  );
  const { kept, fitted } = layout(head, widths, opts);
  const cells = (row: string[]) =>
    kept.map((column, k) => {
      const cell = row[column] ?? '';
      const width = fitted[k] ?? 0;
      return width === widths[column] ? cell : truncate(cell, width);
    });
  const lines = (drawn: string[]) => `${drawn.map((line) => line.trimEnd()).join('\n')}\n`;
  const cache = new Map<string, number>();
  let chunk: string[][] = [];
  for (const row of [head, ...rows]) {
    const texts = cells(row);
    const deltas = texts.map((text) => misjudged(text, cache));
    const misjudgedRow = deltas.some((d) => d !== 0);
    if (!misjudgedRow) chunk.push(texts);
    if (chunk.length === CHUNK || (misjudgedRow && chunk.length > 0)) {
      yield lines(draw(chunk, fitted));
      chunk = [];
    }
    if (misjudgedRow) {
      // cli-table3 pads each cell to the column's width as it measures the text: this row gets
      // the widths that make its padding end where the column does.
      const padTo = fitted.map((w, k) => w - (deltas[k] ?? 0));
      yield lines(draw([texts], padTo));
    }
  }
  if (chunk.length > 0) yield lines(draw(chunk, fitted));
}
