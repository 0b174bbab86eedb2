// archivectl: the daemon (`serve`) and the admin CLI; main(argv, io) runs one command. Only the command tree
// is imported here; actions/*.ts load when their command runs (docs/ARCHITECTURE.md, "Start-up").
import { Command, CommanderError } from 'commander';
import { expectedSchema, programVersion } from '../release/versions.js';
import { isAppError, redactSecrets } from '../errors.js';
import { escapeUnsafe } from '../unsafe-text.js';
import { isJournalStream } from '../journal-stream.js';
import type { GlobalOptions } from './context.js';
import { currentIo, resolveIo, type CliIo } from './io.js';
import { environmentHelp, EXIT_STATUS, helpText } from './about.js';
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
  return programVersion();
}

/** What --version prints: the release, and the database schema it expects (no database opened). */
export const versionLine = (): string => `archivectl ${version()} (database schema ${expectedSchema()})`;

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
    // Commands listed by name alone (`help <command>` shows the arguments), so that descriptions
    // keep room to wrap at 80 columns; commander wraps nothing narrower than minWidthToWrap.
    .configureHelp({ subcommandTerm: (cmd) => cmd.name(), minWidthToWrap: 24 })
    .description('Archive API daemon and its admin CLI')
    // Not commander's .version(): that wants the text when the tree is built, and reading the
    // migrations' directory is work only --version needs.
    .option('-V, --version', 'print the version and the database schema it expects')
    .option(
      '--config <file>',
      'configuration file (else ARCHIVE_CONFIG, else ./config.json, else /etc/archivectl/config.json, else defaults)',
    )
    .enablePositionalOptions()
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText('after', helpText(`\nEnvironment:\n${environmentHelp()}\n\nExit status: ${EXIT_STATUS}`));
  program.on('option:version', () => {
    io.stdout.write(`${versionLine()}\n`);
    throw new CommanderError(0, 'commander.version', versionLine());
  });
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
  registerCompletion(program, globals);
  registerHelp(program);
  return program;
}

/** `help token create` shows the help of `token create` (commander's own stops at `token`). */
function registerHelp(program: Command): void {
  program.helpCommand(false);
  program
    .command('help [command...]')
    .description('show the help of a command, e.g. archivectl help token create')
    .action((names: string[]) => {
      let command = program;
      for (const name of names) {
        const next = command.commands.find((c) => c.name() === name || c.aliases().includes(name));
        if (!next)
          command.error(`error: unknown command '${[...names.slice(0, names.indexOf(name)), name].join(' ')}'`);
        else command = next;
      }
      command.help();
    });
}

const HELP_OR_VERSION = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

/**
 * Runs one command (`argv` shaped like process.argv); `given` replaces any of the process's io
 * (io.ts) for this run. Returns the exit status; never exits the process (only `serve` does).
 */
export async function main(argv: string[], given?: Partial<CliIo>): Promise<number> {
  const io = resolveIo(given);
  const run = async (): Promise<number> => {
    try {
      await buildProgram(io).parseAsync(argv);
      return 0;
    } catch (err) {
      if (err instanceof CommanderError) return HELP_OR_VERSION.has(err.code) ? 0 : 2; // commander printed it
      if (err instanceof PromptCancelled) {
        io.stderr.write(err.interrupted ? '\ninterrupted\n' : 'cancelled: nothing was changed\n');
        return err.interrupted ? 130 : 1;
      }
      // Unexpected errors may quote SQL with bound values (hashes): cut those out. Messages
      // quote names and arguments, which may hold what a terminal would obey: escaped.
      const safe = (text: string) => escapeUnsafe(redactSecrets(text), { keepNewlines: true });
      const message = safe(err instanceof Error ? err.message : String(err));
      // On the journal (a unit's stderr) each line is an entry of error priority, not info.
      const priority = io.stderr === process.stderr && isJournalStream(2, io.env) ? '<3>' : '';
      const text = `${message.startsWith('config error') ? '' : 'error: '}${message}`;
      io.stderr.write(`${text.replace(/^/gm, priority)}\n`);
      // A user error is one line; anything else is a bug, whose stack helps only on request.
      if (!isAppError(err) && io.env.ARCHIVECTL_DEBUG && err instanceof Error)
        io.stderr.write(`${safe(err.stack ?? '')}\n`);
      return isAppError(err) && (err.kind === 'usage' || err.kind === 'config') ? 2 : 1;
    }
  };
  // The process's own run needs no store (io() falls back to the process's), which spares the
  // daemon the promise hooks an AsyncLocalStorage keeps on every promise for as long as it runs.
  return given ? currentIo.run(io, run) : run();
}
