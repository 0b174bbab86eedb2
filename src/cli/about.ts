// What `--help` and the manual page (man-page.ts) both say about the environment, the exit
// status and the --as fallback: written once here, so the two cannot drift apart.

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

/** The help of --as where the acting account is optional; `doing`: what the admin does. */
export const optionalAsHelp = (doing: string) =>
  `the admin or superuser ${doing} (else ARCHIVECTL_AS; without either, the audit log names the OS user)`;

/** The environment as `--help` lists it: names in a column of 20, a longer one on a line of its own. */
export function environmentHelp(): string {
  const width = 20;
  return ENVIRONMENT.map(([name, text]) =>
    name.length < width ? `  ${name.padEnd(width)}${text}` : `  ${name}\n  ${' '.repeat(width)}${text}`,
  ).join('\n');
}
