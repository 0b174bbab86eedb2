import { MAX_DAYS, parseArg, SETTING_NAME, SWITCH } from '../args.js';
import { acting, mayAdminister } from '../ask.js';
import { withDb, type AsFlag, type Globals, type JsonFlag } from '../context.js';
import { printJson, printTable } from '../output.js';
import type { SettingsView } from '../../domain/settings.js';
import { TOKEN_MAX_DAYS } from '../../domain/setting-names.js';

function shownValue(value: boolean | number | null): string {
  if (typeof value === 'number') return String(value);
  return value ? 'on' : 'off';
}

async function printSettings(settings: SettingsView, json: boolean | undefined): Promise<void> {
  if (json) printJson(settings);
  else
    await printTable(
      ['Setting', 'Value'],
      Object.entries(settings).map(([k, v]) => [k, shownValue(v)]),
    );
}

export async function show(globals: Globals, opts: { json?: boolean }): Promise<void> {
  const { readSettingsView } = await import('../../domain/settings.js');
  await printSettings(await withDb(globals(), (ctx) => readSettingsView(ctx)), opts.json);
}

export async function set(globals: Globals, name: string, value: string, opts: AsFlag & JsonFlag): Promise<void> {
  const setting = parseArg(SETTING_NAME, name);
  const days = setting === TOKEN_MAX_DAYS ? parseArg(MAX_DAYS, value) : undefined;
  const on = setting === TOKEN_MAX_DAYS ? undefined : parseArg(SWITCH, value);
  const { setSetting, setTokenMaxDays } = await import('../../domain/settings-change.js');
  const settings = await withDb(globals(), async (ctx) => {
    const by = await acting(ctx, opts.as, mayAdminister(ctx, 'change settings'));
    if (days !== undefined) return setTokenMaxDays(ctx, days, by);
    return setSetting(ctx, setting as Exclude<typeof setting, typeof TOKEN_MAX_DAYS>, on === true, by);
  });
  await printSettings(settings, opts.json);
}
