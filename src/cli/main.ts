// archivectl: the daemon (`serve`) and the admin CLI, one program. Commands load what they need
// when they run, so `archivectl --help` starts in a few tens of milliseconds.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { isAppError, redactSecrets } from '../errors.js';
import type { GlobalOptions } from './context.js';
import { registerAccount } from './commands/account.js';
import { registerAudit } from './commands/audit.js';
import { registerCatalog } from './commands/catalog.js';
import { registerCopyDatabase } from './commands/copy-database.js';
import { registerMigrate } from './commands/migrate.js';
import { registerRoutes } from './commands/routes.js';
import { registerServe } from './commands/serve.js';
import { registerSettings } from './commands/settings.js';
import { registerToken } from './commands/token.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export function buildProgram(): Command {
  const program = new Command('archivectl')
    .description('Archive API daemon and its admin CLI')
    .version(pkg.version, '--version', 'print the version')
    .option('--config <file>', 'configuration file (else ARCHIVE_CONFIG, else ./config.json, else defaults)')
    .enablePositionalOptions()
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText(
      'after',
      `
Environment:
  ARCHIVE_CONFIG   configuration file, when --config is not given
  DATABASE_URL     postgres:// URL; overrides the configured database
  ARCHIVECTL_AS    acting account for token commands, when --as is not given

Exit status: 0 done, 1 refused or failed, 2 usage or configuration error.`,
    );
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
  return program;
}

function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help'
      ? 0
      : 2;
  }
  if (isAppError(err)) return err.kind === 'usage' || err.kind === 'config' ? 2 : 1;
  return 1;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (err) {
    const code = exitCodeFor(err);
    if (err instanceof CommanderError) return code; // commander has printed its message
    if (err instanceof Error && err.name === 'ExitPromptError') {
      process.stderr.write('cancelled\n');
      return 1;
    }
    // Unexpected errors may quote SQL with bound values (hashes): cut those out.
    const message = redactSecrets(err instanceof Error ? err.message : String(err));
    process.stderr.write(`${message.startsWith('config error') ? '' : 'error: '}${message}\n`);
    // A user error is one line; anything else is a bug, whose stack helps only on request.
    if (!isAppError(err) && process.env.ARCHIVECTL_DEBUG && err instanceof Error) process.stderr.write(`${redactSecrets(err.stack ?? '')}\n`);
    return code;
  }
}

process.exitCode = await main(process.argv);
