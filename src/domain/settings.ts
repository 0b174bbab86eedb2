// public_api and public_access (docs/http-api.md): stored in the database, both off by default.
// token_max_days: the token lifetime policy (tokens/lifetime.ts), off by default. Read here by
// the daemon and the CLI; changed by the CLI only (settings-change.ts).
import type { Ctx } from './context.js';
import { SETTING_NAMES, TOKEN_MAX_DAYS, type SettingName } from './setting-names.js';

export type Settings = Record<SettingName, boolean>;

/** Every setting, as `archivectl settings` shows them: the switches, and token_max_days (null: off). */
export type SettingsView = Settings & { token_max_days: number | null };

export async function readSettings(ctx: Pick<Ctx, 'db'>): Promise<Settings> {
  const rows = (await ctx.db('settings').whereIn('key', SETTING_NAMES)) as { key: string; value: string }[];
  const out: Settings = { public_api: false, public_access: false };
  for (const row of rows) out[row.key as SettingName] = row.value === 'on';
  return out;
}

/** The token lifetime policy in days, or null when it is off (absent, `off`, or unreadable). */
export async function readTokenMaxDays(ctx: Pick<Ctx, 'db'>): Promise<number | null> {
  const row = await ctx.db('settings').where('key', TOKEN_MAX_DAYS).first<{ value: string } | undefined>('value');
  const days = row && /^\d{1,9}$/.test(row.value) ? Number(row.value) : 0;
  return days > 0 ? days : null;
}

export async function readSettingsView(ctx: Pick<Ctx, 'db'>): Promise<SettingsView> {
  return { ...(await readSettings(ctx)), token_max_days: await readTokenMaxDays(ctx) };
}
