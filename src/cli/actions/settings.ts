// What the settings commands do (their options and help are in ../commands/settings.ts). Loaded
// only when one of them runs.
import { parseArg, SETTING_NAME, SWITCH } from '../args.js';
import { optionalActor, osActor } from '../ask.js';
import { withDb, type GlobalOptions } from '../context.js';
import type { AsFlag, JsonFlag } from '../flags.js';
import { printJson, printTable } from '../output.js';
import type { Settings } from '../../domain/settings.js';

type Globals = () => GlobalOptions;

function printSettings(settings: Settings, json: boolean | undefined): void {
  if (json) printJson(settings);
  else
    printTable(
      ['Setting', 'Value'],
      Object.entries(settings).map(([k, v]) => [k, v ? 'on' : 'off']),
    );
}

export async function show(globals: Globals, opts: { json?: boolean }): Promise<void> {
  const { readSettings } = await import('../../domain/settings.js');
  printSettings(await withDb(globals(), (ctx) => readSettings(ctx)), opts.json);
}

export async function set(globals: Globals, name: string, value: string, opts: AsFlag & JsonFlag): Promise<void> {
  const setting = parseArg(SETTING_NAME, name);
  const on = parseArg(SWITCH, value);
  // --as, else ARCHIVECTL_AS; without either the audit log names the operating-system user.
  const by = { account: optionalActor(opts.as), otherwise: osActor() };
  const { setSetting } = await import('../../domain/settings.js');
  printSettings(await withDb(globals(), (ctx) => setSetting(ctx, setting, on, by)), opts.json);
}
