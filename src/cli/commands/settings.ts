import type { Command } from 'commander';
import { parseArg, SETTING_NAME, SWITCH } from '../args.js';
import { withDb, type GlobalOptions } from '../context.js';
import { printJson, printTable } from '../output.js';
import type { Settings } from '../../domain/settings.js';

async function show(settings: Settings, json: boolean | undefined): Promise<void> {
  if (json) printJson(settings);
  else
    printTable(
      ['Setting', 'Value'],
      Object.entries(settings).map(([k, v]) => [k, v ? 'on' : 'off']),
    );
}

export function registerSettings(program: Command, globals: () => GlobalOptions): void {
  const settings = program
    .command('settings')
    .description('show the settings public_api and public_access')
    .option('--json', 'print {"public_api": bool, "public_access": bool}')
    .addHelpText(
      'after',
      `
public_access  the archive is public: authority endpoints answer without a token
public_api     read-only API without a token (GET/HEAD on /api/objects and authority endpoints)
Changes are in effect in every running daemon from the next request.`,
    )
    .action(async (opts: { json?: boolean }) => {
      const { readSettings } = await import('../../domain/settings.js');
      await show(await withDb(globals(), (ctx) => readSettings(ctx)), opts.json);
    });

  settings
    .command('set <name> <value>')
    .description('set public_api or public_access to on or off')
    .option('--json', 'print the settings as JSON')
    .addHelpText('after', '\nExample:\n  archivectl settings set public_access on')
    .action(async (name: string, value: string, opts: { json?: boolean }) => {
      const setting = parseArg(SETTING_NAME, name);
      const on = parseArg(SWITCH, value);
      const { setSetting } = await import('../../domain/settings.js');
      const { SYSTEM } = await import('../../domain/audit.js');
      await show(await withDb(globals(), (ctx) => setSetting(ctx, setting, on, SYSTEM)), opts.json);
    });
}
