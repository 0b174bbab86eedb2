// archivectl: the daemon (`serve`) and the admin CLI, one program. Importing this module does
// nothing: bin/archivectl calls main(process.argv), tests call main(argv, io).
//
// Start-up time is mostly module loading, so a run loads only what its command needs. This
// module and commands/*.ts are the command tree (names, options, help texts: what --help, the
// man page and completion read) and import nothing heavy; each command's code is in
// actions/*.ts, imported when the command runs, and loads the domain and the database (knex)
// only once it gets that far. Keep it so: from here and from commands/, import only small
// standalone modules (names, roles, statuses); one that brings config, valibot, the domain's
// services or the database slows every run, `--help` included.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { isAppError, redactSecrets } from '../errors.js';
import { escapeUnsafe } from '../unsafe-text.js';
import type { GlobalOptions } from './context.js';
import { resolveIo, runWithIo, type CliIo } from './io.js';
import { environmentHelp, EXIT_STATUS } from './about.js';
import { PromptCancelled } from './cancelled.js';
import { registerAccount } from './commands/account.js';
import { registerAudit } from './commands/audit.js';
import { registerBackup } from './commands/backup.js';
import { registerCatalog } from './commands/catalog.js';
import { registerCompletion } from './commands/completion.js';
import { registerCopyDatabase } from './commands/copy-database.js';
import { registerDoctor } from './commands/doctor.js';
import { registerMigrate } from './commands/migrate.js';
import { registerRoutes } from './commands/routes.js';
import { registerServe } from './commands/serve.js';
import { registerSettings } from './commands/settings.js';
import { registerToken } from './commands/token.js';

export function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}

export function buildProgram(io: CliIo = resolveIo()): Command {
  const program = new Command('archivectl')
    // Before any subcommand is added: subcommands copy the output settings when created.
    // commander quotes arguments in its messages ("unknown command …"): escaped like notes.
    .configureOutput({
      writeOut: (text) => void io.stdout.write(escapeUnsafe(text, { keepNewlines: true })),
      writeErr: (text) => void io.stderr.write(escapeUnsafe(text, { keepNewlines: true })),
      getOutHelpWidth: () => io.stdout.columns ?? 80,
      getErrHelpWidth: () => io.stderr.columns ?? 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .description('Archive API daemon and its admin CLI')
    .version(version(), '-V, --version', 'print the version')
    .option(
      '--config <file>',
      'configuration file (else ARCHIVE_CONFIG, else ./config.json, else /etc/archivectl/config.json, else defaults)',
    )
    .enablePositionalOptions()
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText('after', `\nEnvironment:\n${environmentHelp()}\n\nExit status: ${EXIT_STATUS}`);
  const globals = () => program.opts<GlobalOptions>();
  registerServe(program, globals);
  registerMigrate(program, globals);
  registerAccount(program, globals);
  registerToken(program, globals);
  registerSettings(program, globals);
  registerRoutes(program, globals);
  registerAudit(program, globals);
  registerCatalog(program, globals);
  registerCopyDatabase(program, globals);
  registerDoctor(program, globals);
  registerBackup(program, globals);
  registerCompletion(program);
  return program;
}

const HELP_OR_VERSION = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) return HELP_OR_VERSION.has(err.code) ? 0 : 2;
  if (isAppError(err)) return err.kind === 'usage' || err.kind === 'config' ? 2 : 1;
  return 1;
}

/**
 * Runs one command. `argv` is shaped like process.argv (the first two entries are skipped);
 * `given` replaces any of this process's streams, environment, working directory, clock and
 * stop signals for this run (tests run several at once). Returns the exit status; never exits
 * the process (only `serve` does, once it has shut down).
 */
export async function main(argv: string[], given?: Partial<CliIo>): Promise<number> {
  const io = resolveIo(given);
  const run = async (): Promise<number> => {
    try {
      await buildProgram(io).parseAsync(argv);
      return 0;
    } catch (err) {
      const code = exitCodeFor(err);
      if (err instanceof CommanderError) return code; // commander has printed its message
      if (err instanceof PromptCancelled) {
        io.stderr.write(err.interrupted ? '\ninterrupted\n' : 'cancelled: nothing was changed\n');
        return err.interrupted ? 130 : 1;
      }
      // Unexpected errors may quote SQL with bound values (hashes): cut those out. Messages
      // quote names and arguments, which may hold what a terminal would obey: escaped.
      const message = escapeUnsafe(redactSecrets(err instanceof Error ? err.message : String(err)), {
        keepNewlines: true,
      });
      io.stderr.write(`${message.startsWith('config error') ? '' : 'error: '}${message}\n`);
      // A user error is one line; anything else is a bug, whose stack helps only on request.
      if (!isAppError(err) && io.env.ARCHIVECTL_DEBUG && err instanceof Error)
        io.stderr.write(`${escapeUnsafe(redactSecrets(err.stack ?? ''), { keepNewlines: true })}\n`);
      return code;
    }
  };
  // The process's own run (bin/archivectl) needs no store: io() falls back to the process's
  // streams and clock. Leaving it out spares the daemon the promise hooks an AsyncLocalStorage
  // keeps on every promise for as long as it runs.
  return given ? runWithIo(io, run) : run();
}
