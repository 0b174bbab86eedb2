// What `--help` and the manual page both say (environment, exit status, --as), written once so they cannot
// drift apart; and how help text is laid out for the terminal.
import { io } from './io.js';

/** Environment variables archivectl reads: name(s), what for. */
export const ENVIRONMENT: readonly (readonly [string, string])[] = [
  ['ARCHIVE_CONFIG', 'configuration file, when --config is not given'],
  ['DATABASE_URL', 'postgres:// URL; overrides the configured database'],
  ['ARCHIVECTL_AS', 'acting account of token, account and settings commands, when --as is not given'],
  ['ARCHIVECTL_COPY_TO', 'target postgres:// URL of copy-database, when not given as an argument'],
  ['ARCHIVECTL_DEBUG', '1: stack traces for unexpected errors'],
  ['NOTIFY_SOCKET, WATCHDOG_USEC', 'set by systemd for Type=notify: serve reports readiness and pings the watchdog'],
];

export const EXIT_STATUS =
  '0 done, 1 refused or failed, 2 usage or configuration error (a database that is\n' +
  'not there included: only migrate and serve create one; a config or SQLite file that\n' +
  'another user could have written), 130 interrupted (Ctrl-C).';

/** The help of --as of account and settings commands; `doing`: what the admin does. */
export const optionalAsHelp = (doing: string) =>
  `the admin or superuser ${doing} (else ARCHIVECTL_AS, else asked in a terminal; not needed while there is no account)`;

/** The environment as `--help` lists it: names in a column of 20, a longer one on a line of its own. */
export function environmentHelp(): string {
  const width = 20;
  return ENVIRONMENT.map(([name, text]) =>
    name.length < width ? `  ${name.padEnd(width)}${text}` : `  ${name}\n  ${' '.repeat(width)}${text}`,
  ).join('\n');
}

/** Words of `text` (a shell command's quoted parts kept whole) on lines of at most `width`. */
function fill(words: string[], width: number, first: string, rest: string, joint = ''): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of words) {
    // A word longer than a line stays whole: a word broken in two reads as two words.
    if (!empty && line.length + 1 + word.length + joint.length > width) {
      lines.push(line + joint);
      line = rest + word;
    } else line = empty ? line + word : `${line} ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

const SHELL_WORDS = /(?:"[^"]*"|'[^']*'|\S)+/g;

/** An example command too long for a line: its comment gets a line of its own, then `\` continues it. */
function fitCommand(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const indent = /^\s*/.exec(line)?.[0] ?? '';
  const [, command, comment] = /^(.*?\S)\s+(# .*)$/.exec(line) ?? [];
  if (command !== undefined && comment !== undefined) {
    const tight = `${command}  ${comment}`;
    if (tight.length <= width) return [tight];
    return [...fill(comment.slice(2).split(' '), width, `${indent}# `, `${indent}# `), ...fitCommand(command, width)];
  }
  // An option and its value stay on one line (`--expires 2027-06-30`).
  const words: string[] = [];
  for (const word of line.trim().match(SHELL_WORDS) ?? []) {
    const last = words.at(-1);
    if (last?.startsWith('--') && !last.includes('=') && !word.startsWith('-'))
      words[words.length - 1] = `${last} ${word}`;
    else words.push(word);
  }
  return fill(words, width, indent, `${indent}    `, ' \\');
}

/**
 * Help text laid out for `width` columns: prose at the left margin joined and wrapped, an indented `term  text`
 * wrapped under its text, commands after "Example(s):" never broken inside a word (continued with `\`).
 */
export function reflow(text: string, width: number): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  let commands = false;
  const flush = () => {
    if (paragraph.length > 0) out.push(...fill(paragraph.join(' ').split(/\s+/), width, '', ''));
    paragraph = [];
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      flush();
      out.push('');
      commands = false;
    } else if (!/^\s/.test(line)) {
      paragraph.push(line.trim());
      if (line.endsWith(':')) {
        flush();
        commands = /Examples?:$/.test(line);
      }
    } else {
      flush();
      const [, term, description] = /^(\s+\S.*?\s{2,})(\S.*)$/.exec(line) ?? [];
      if (commands) out.push(...fitCommand(line, width));
      else if (term !== undefined && description !== undefined)
        out.push(...fill(description.split(' '), width, term, ' '.repeat(term.length)));
      else {
        const indent = /^\s*/.exec(line)?.[0] ?? '';
        out.push(...fill(line.trim().split(' '), width, indent, indent));
      }
    }
  }
  flush();
  return out.join('\n');
}

/** Text for commander's addHelpText, reflowed for the terminal it is shown on (80 columns elsewhere). */
export function helpText(text: string) {
  return (context: { error: boolean }): string => {
    const { stdout, stderr } = io();
    return reflow(text, (context.error ? stderr : stdout).columns ?? 80);
  };
}
