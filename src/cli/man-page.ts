// archivectl(1), written from the command tree like --help and completion, so it never describes
// a command that is not there. `npm run prepare` writes it to man/archivectl.1 (package "man").
import { ENVIRONMENT, EXIT_STATUS } from './about.js';
import type { Command, Option } from 'commander';

/**
 * Text made safe for roff: backslashes, leading dots and quotes, hyphens meant as minus signs, and
 * characters beyond ASCII as groff's \[uXXXX] (troff reads its input as Latin-1 otherwise).
 */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/gm, '\\&$1')
    .replace(
      /[\u{80}-\u{10FFFF}]/gu,
      (c) => `\\[u${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}]`,
    );
}

function optionLines(options: readonly Option[]): string[] {
  return options.flatMap((o) => ['.TP', `.B ${roff(o.flags)}`, roff(o.description)]);
}

/** Every command below `command`, depth first: its usage, description and options. */
function commandLines(command: Command, path: readonly string[] = []): string[] {
  return command.commands.flatMap((sub) => {
    const name = [...path, sub.name()].join(' ');
    return [
      '.TP',
      `.B ${roff(`${name} ${sub.usage()}`.trim())}`,
      roff(sub.description()),
      ...(sub.options.length > 0 ? ['.RS', ...optionLines(sub.options), '.RE'] : []),
      ...commandLines(sub, [...path, sub.name()]),
    ];
  });
}

export function manPage(program: Command, version: string, date: string): string {
  const lines = [
    `.TH ARCHIVECTL 1 "${date}" "archivectl ${version}" "User Commands"`,
    '.SH NAME',
    `archivectl \\- ${roff(program.description())}`,
    '.SH SYNOPSIS',
    '.B archivectl',
    '[\\fB\\-\\-config\\fR \\fIfile\\fR] \\fIcommand\\fR [\\fIoptions\\fR]',
    '.SH DESCRIPTION',
    '\\fBarchivectl serve\\fR runs the API daemon: JSON under /api, JSON log lines on stdout, a clean',
    'stop on SIGTERM. Every other command administers the same database directly: accounts, tokens,',
    'settings, the audit log, the catalogue. Commands that list or create things take \\fB\\-\\-json\\fR.',
    '.SH GLOBAL OPTIONS',
    ...optionLines(program.options),
    '.SH COMMANDS',
    ...commandLines(program),
    '.SH ENVIRONMENT',
    ...ENVIRONMENT.flatMap(([name, text]) => ['.TP', `.B ${roff(name)}`, roff(text)]),
    '.SH FILES',
    '.TP',
    '.B ./config.json, /etc/archivectl/config.json',
    'configuration files looked for, in this order, after \\-\\-config and ARCHIVE_CONFIG.',
    'A configuration file or SQLite database (or its \\-wal or \\-shm file) that its group or others',
    'may write, or that belongs to a user other than the one running archivectl and root, is refused',
    '(exit status 2), as another user could have put it there; the message names the file and the',
    '\\fBchmod go\\-w\\fR or \\fBchown\\fR that fixes it.',
    '.SH EXIT STATUS',
    roff(EXIT_STATUS),
    '.SH SEE ALSO',
    'The README and docs/operations.md of the package.',
  ];
  return `${lines.join('\n')}\n`;
}
