// Output without tables (output.ts, table.ts), so commands that print none never load them. Data to stdout,
// the rest to stderr; text from the database shows terminal controls escaped (--json keeps them).
import { escapeUnsafe, INVISIBLE_CLASS } from '../unsafe-text.js';
import { io } from './io.js';

// JSON.stringify escapes C0 controls but writes DEL, C1 controls and the format characters
// as they are. They can only occur inside strings, where \uXXXX means the same character.
const JSON_UNSAFE = new RegExp(`[${INVISIBLE_CLASS}]`, 'g');

export function printJson(value: unknown): void {
  const json = JSON.stringify(value, null, 2).replace(
    JSON_UNSAFE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  io().stdout.write(`${json}\n`);
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

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** True when `text` is printable ASCII: one terminal cell a character, measured without string-width. */
export function isPlainAscii(text: string): boolean {
  return PRINTABLE_ASCII.test(text);
}

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];

/** A size for people: `453963776` → `433 MiB`, `1536` → `1.5 KiB`, `12` → `12 bytes`. */
export function humanBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = unit === 0 || value >= 10 ? String(Math.round(value)) : value.toFixed(1);
  return `${shown} ${UNITS[unit]}`;
}
