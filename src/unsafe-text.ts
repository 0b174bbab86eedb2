// Text a terminal would obey instead of showing, or that hides or reorders what is shown: C0 and C1
// controls (ESC starts a terminal sequence; U+009B is a one-character CSI), DEL, line and
// paragraph separators, and invisible or bidirectional format controls (a U+202E in a name makes
// "evil\u202ecod.exe" read as "evilexe.doc"). Names and usernames may not contain them; text from
// the database is shown with them escaped (escapeUnsafe). INVISIBLE_CLASS: all of them but the C0
// controls, as regular-expression class ranges.
export const INVISIBLE_CLASS =
  '\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';
const UNSAFE = new RegExp(`[\\u0000-\\u001f${INVISIBLE_CLASS}]`);
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
const UNSAFE_BUT_NEWLINE = new RegExp(`[\\u0000-\\u0009\\u000b-\\u001f${INVISIBLE_CLASS}]`, 'g');

/** `\x1b` for a character below U+0100, else `\u202e`. */
function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The first unsafe character of a text, escaped (for messages), or null. */
export function findUnsafe(text: string): string | null {
  const m = UNSAFE.exec(text);
  return m ? escapeChar(m[0]) : null;
}

/** Text with every unsafe character escaped, so that a terminal shows it instead of obeying it. */
export function escapeUnsafe(text: string, opts: { keepNewlines?: boolean } = {}): string {
  return text.replace(opts.keepNewlines ? UNSAFE_BUT_NEWLINE : UNSAFE_ALL, escapeChar);
}
