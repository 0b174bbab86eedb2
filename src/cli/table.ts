// Tables: aligned columns two spaces apart, a heading line, no borders or lines between rows.
// In a terminal the table fits its width: the widest free-text column(s) are cut with "…",
// and when that is not enough, the columns the caller names are left out. Anywhere else (a
// pipe, a file) nothing is cut or left out, one line per row. Cells arrive escaped
// (output.ts): no tab, line break or terminal control can hide inside one, so the output stays
// plain text that grep and awk read (--json is for programs).

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
/** A cut column keeps at least this many characters (and never less than its heading). */
const MIN_FLEX = 8;

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

const ASCII = /^[\x20-\x7e]*$/;

/** Columns a text takes in a terminal: wide East Asian characters and emoji take two, combining marks none. */
export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let width = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x300 && cp <= 0x36f) continue;
    width += isWide(cp) ? 2 : 1;
  }
  return width;
}

/** `text` cut to `width` columns, ending in "…" when cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = displayWidth(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

function pad(text: string, width: number): string {
  const missing = width - displayWidth(text);
  return missing > 0 ? text + ' '.repeat(missing) : text;
}

/** Widths of the columns after cutting free-text ones until the line fits (as far as it can). */
function fitWidths(widths: number[], head: string[], opts: TableOptions): number[] {
  const fitted = [...widths];
  const total = () => lineWidth(fitted);
  const flex = [...(opts.flex ?? [])];
  while (total() > opts.columns && flex.length > 0) {
    flex.sort((a, b) => (fitted[b] ?? 0) - (fitted[a] ?? 0));
    const widest = flex[0] as number;
    const floor = Math.max(MIN_FLEX, displayWidth(head[widest] ?? ''));
    const cut = Math.max(floor, (fitted[widest] ?? 0) - (total() - opts.columns));
    if (cut >= (fitted[widest] ?? 0)) flex.shift();
    else fitted[widest] = cut;
  }
  return fitted;
}

const lineWidth = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);

export function renderTable(head: string[], rows: string[][], opts: TableOptions): string {
  if (!opts.terminal) return renderTable(head, rows, { terminal: true, columns: Infinity });
  const widths = head.map((h) => displayWidth(h));
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const w = displayWidth(row[i] ?? '');
      if (w > (widths[i] ?? 0)) widths[i] = w;
    }
  }
  // Leave out columns (opts.drop, in order) while even cutting the free-text ones is not enough.
  let kept = head.map((_, i) => i);
  const fitKept = () =>
    fitWidths(
      kept.map((i) => widths[i] ?? 0),
      kept.map((i) => head[i] ?? ''),
      { ...opts, flex: (opts.flex ?? []).map((i) => kept.indexOf(i)).filter((i) => i >= 0) },
    );
  let fitted = fitKept();
  for (const column of opts.drop ?? []) {
    if (lineWidth(fitted) <= opts.columns) break;
    kept = kept.filter((i) => i !== column);
    fitted = fitKept();
  }
  const last = kept.length - 1;
  const line = (row: string[]) =>
    kept
      .map((column, k) => {
        const cell = row[column] ?? '';
        const width = fitted[k] ?? 0;
        const text = width === widths[column] ? cell : truncate(cell, width);
        return k === last ? text : pad(text, width);
      })
      .join(GAP)
      .trimEnd();
  const out: string[] = [line(head)];
  for (const row of rows) out.push(line(row));
  return `${out.join('\n')}\n`;
}
